#include "engine/dataplane/app_fanout.h"

#include <algorithm>

namespace servescope::engine {
namespace {

constexpr std::uint64_t kCpuToken = std::uint64_t{1} << 63;  // the inner plane's tokens stay below

}  // namespace

AppFanout::AppFanout(std::unique_ptr<DataPlane> inner, std::vector<AppGraph> apps)
    : inner_(std::move(inner)), apps_(std::move(apps)), inner_ctx_{*this, *this, *this} {
  for (const auto& g : apps_)
    copy_credit_.emplace_back(g.nodes.size(), 0.0);
}

void AppFanout::start(DataPlaneContext& context) {
  ctx_ = &context;
  cpu_timer_ = context.clock.create_timer(kCpuToken);
  inner_->start(inner_ctx_);
}

void AppFanout::on_request(const Request& request) {
  const auto it = std::ranges::find(apps_, request.model, &AppGraph::request_model);
  if (it == apps_.end()) {
    inner_->on_request(request);
    return;
  }
  Live app{request, &*it, {}, {}, 0};
  for (const auto& n : it->nodes) {
    app.waiting.push_back(n.inputs);
    app.copies_left.push_back(0);
    app.sinks_left += n.sink ? 1 : 0;
  }
  live_.emplace(request.id, std::move(app));
  for (std::size_t n = 0; n < it->nodes.size(); ++n) {
    const auto live = live_.find(request.id);  // a source's module may be dropped at once
    if (live == live_.end()) return;
    if (it->nodes[n].inputs == 0) launch(live->second, n, ctx_->clock.now());
  }
}

void AppFanout::launch(Live& app, std::size_t node, Time now) {
  const auto& n = app.graph->nodes[node];
  int copies = 1;
  if (n.model && n.copies != 1) {
    auto& credit = copy_credit_[static_cast<std::size_t>(app.graph - apps_.data())][node];
    credit += n.copies;
    copies = static_cast<int>(credit);
    credit -= copies;
  }
  if (!n.model || copies == 0) {  // a CPU step, or a module with nothing to do this time
    app.copies_left[node] = 1;
    cpu_.push({now + (n.model ? Duration() : n.cpu), app.request.id, node});
    ctx_->clock.arm(cpu_timer_, cpu_.top().at);
    return;
  }
  app.copies_left[node] = copies;
  const RequestId id = app.request.id;
  for (int k = 0; k < copies; ++k) {
    Request r{next_module_++, *n.model, app.request.target, now, app.request.deadline, true};
    modules_[r.id] = {id, node};
    inner_->on_request(r);  // may drop the application request
    if (!live_.contains(id)) return;
  }
}

void AppFanout::node_done(RequestId id, std::size_t node, Time end) {
  const auto it = live_.find(id);
  if (it == live_.end()) return;  // already dropped
  auto& app = it->second;
  if (--app.copies_left[node] > 0) return;  // other copies of this module still run
  const auto& n = app.graph->nodes[node];
  if (n.sink && --app.sinks_left == 0) {
    const Request done = app.request;
    live_.erase(it);
    ctx_->outcomes.completed(done, done.arrival, end);
    return;
  }
  const auto next = n.next;  // launching may drop the request (and erase `app`) at once
  for (const auto s : next) {
    const auto still = live_.find(id);
    if (still == live_.end()) return;
    if (--still->second.waiting[s] == 0) launch(still->second, s, end);
  }
}

void AppFanout::on_timer(std::uint64_t token) {
  if (token != kCpuToken) {
    inner_->on_timer(token);
    return;
  }
  const Time now = ctx_->clock.now();
  while (!cpu_.empty() && cpu_.top().at <= now) {
    const auto done = cpu_.top();
    cpu_.pop();
    node_done(done.app, done.node, done.at);
  }
  if (!cpu_.empty()) ctx_->clock.arm(cpu_timer_, cpu_.top().at);
}

void AppFanout::execute(Batch batch) {
  if (batch.final_stage) {
    std::vector<RequestId> ids;
    for (const auto& r : batch.requests)
      if (r.internal) ids.push_back(r.id);
    if (!ids.empty()) batches_[batch.id] = std::move(ids);
  }
  ctx_->executor.execute(std::move(batch));
}

void AppFanout::on_batch_done(const BatchDone& done) {
  inner_->on_batch_done(done);
  const auto it = batches_.find(done.id);
  if (it == batches_.end()) return;
  const auto ids = std::move(it->second);
  batches_.erase(it);
  for (const auto id : ids) {
    const auto m = modules_.find(id);
    if (m == modules_.end()) continue;
    const auto [app, node] = m->second;
    modules_.erase(m);
    node_done(app, node, done.end);
  }
}

void AppFanout::dropped(const Request& request, DropReason reason) {
  if (!request.internal) {
    ctx_->outcomes.dropped(request, reason);
    return;
  }
  const auto m = modules_.find(request.id);
  if (m == modules_.end()) return;
  const auto app = live_.find(m->second.first);
  modules_.erase(m);
  if (app == live_.end()) return;
  const Request parent = app->second.request;
  live_.erase(app);  // its other modules run on, and are ignored when they finish
  ctx_->outcomes.dropped(parent, reason);
}

}  // namespace servescope::engine
