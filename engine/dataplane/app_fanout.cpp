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

AppFanout::Live* AppFanout::find_app(AppRef ref) {
  auto& app = slots_[ref.slot];
  return app.alive && app.generation == ref.generation ? &app : nullptr;
}

void AppFanout::release(Live& app) {
  app.alive = false;
  ++app.generation;
  free_slots_.push_back(static_cast<std::uint32_t>(&app - slots_.data()));
}

AppFanout::Module* AppFanout::find_module(RequestId id) {
  if (id < modules_base_ || id - modules_base_ >= modules_.size()) return nullptr;
  auto& m = modules_[static_cast<std::size_t>(id - modules_base_)];
  return m.open ? &m : nullptr;
}

void AppFanout::close_module(Module& m) {
  m.open = false;
  while (!modules_.empty() && !modules_.front().open) {
    modules_.pop_front();
    ++modules_base_;
  }
}

void AppFanout::on_request(const Request& request) {
  const auto it = std::ranges::find(apps_, request.model, &AppGraph::request_model);
  if (it == apps_.end()) {
    inner_->on_request(request);
    return;
  }
  if (free_slots_.empty()) {
    free_slots_.push_back(static_cast<std::uint32_t>(slots_.size()));
    slots_.emplace_back();
  }
  const auto slot = free_slots_.back();
  free_slots_.pop_back();
  auto& app = slots_[slot];
  app.request = request;
  app.graph = &*it;
  app.waiting.clear();
  app.copies_left.assign(it->nodes.size(), 0);
  app.sinks_left = 0;
  app.alive = true;
  for (const auto& n : it->nodes) {
    app.waiting.push_back(n.inputs);
    app.sinks_left += n.sink ? 1 : 0;
  }
  const AppRef ref{slot, app.generation};
  for (std::size_t n = 0; n < it->nodes.size(); ++n) {
    Live* live = find_app(ref);  // a source's module may be dropped at once
    if (!live) return;
    if (it->nodes[n].inputs == 0) launch(*live, n, ctx_->clock.now());
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
  const AppRef ref{static_cast<std::uint32_t>(&app - slots_.data()), app.generation};
  if (!n.model || copies == 0) {  // a CPU step, or a module with nothing to do this time
    app.copies_left[node] = 1;
    cpu_.push({now + (n.model ? Duration() : n.cpu), ref, node});
    ctx_->clock.arm(cpu_timer_, cpu_.top().at);
    return;
  }
  app.copies_left[node] = copies;
  const Request parent = app.request;
  for (int k = 0; k < copies; ++k) {
    Request r{next_module_++, *n.model, parent.target, now, parent.deadline, true};
    modules_.push_back({ref, node, true});
    inner_->on_request(r);  // may drop the application request
    if (!find_app(ref)) return;
  }
}

void AppFanout::node_done(AppRef ref, std::size_t node, Time end) {
  Live* app = find_app(ref);
  if (!app) return;                          // already dropped
  if (--app->copies_left[node] > 0) return;  // other copies of this module still run
  const auto& n = app->graph->nodes[node];   // the graph outlives the request
  if (n.sink && --app->sinks_left == 0) {
    const Request done = app->request;
    release(*app);
    ctx_->outcomes.completed(done, done.arrival, end);
    return;
  }
  for (const auto s : n.next) {
    Live* still = find_app(ref);  // launching may drop the request at once
    if (!still) return;
    if (--still->waiting[s] == 0) launch(*still, s, end);
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
    if (!spare_.empty()) {
      ids = std::move(spare_.back());
      spare_.pop_back();
    }
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
  auto ids = std::move(it->second);
  batches_.erase(it);
  for (const auto id : ids) {
    Module* m = find_module(id);
    if (!m) continue;
    const auto app = m->app;
    const auto node = m->node;
    close_module(*m);
    node_done(app, node, done.end);
  }
  ids.clear();
  spare_.push_back(std::move(ids));
}

void AppFanout::dropped(const Request& request, DropReason reason) {
  if (!request.internal) {
    ctx_->outcomes.dropped(request, reason);
    return;
  }
  Module* m = find_module(request.id);
  if (!m) return;
  const auto ref = m->app;
  close_module(*m);
  Live* app = find_app(ref);
  if (!app) return;
  const Request parent = app->request;
  release(*app);  // its other modules run on, and are ignored when they finish
  ctx_->outcomes.dropped(parent, reason);
}

}  // namespace servescope::engine
