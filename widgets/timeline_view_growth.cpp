// How the view takes a timeline in: whole (a run read or simulated) or chunk by chunk as a live
// deployment streams it (Qt Creator's TimelineModel::insert, docs gui-anchors §0 item 2). Both go
// through one path: the index and the caches over spans, transfers, queue samples and drops are
// extended from the first position that changed, which is 0 for a whole run. A live view's
// oldest detail is let go with forget_before.
#include <algorithm>

#include "engine/timeline/range_summary.h"
#include "widgets/timeline_view.h"

namespace servescope::widgets {

void TimelineView::adopt(std::shared_ptr<const engine::TimelineData> timeline) {
  const auto* before = data_.get();
  data_ = std::move(timeline);
  ++generation_;
  growing_.reset();
  forgotten_before_ns_ = INT64_MIN;
  if (state_->selection() && state_->selection()->timeline == before) state_->select(std::nullopt);
  linked_.clear();
  flow_.clear();
  index_ = data_ ? engine::TimelineIndex(*data_) : engine::TimelineIndex();
  model_visible_.assign(data_ ? data_->models.size() : 0, true);
  group_size_.clear();
  refresh_colours();
  reset_caches();
  if (!data_) return;
  for (std::uint32_t g = 0; g < data_->gpus.size(); ++g) {
    const auto physical = physical_of(g);
    if (physical >= group_size_.size()) group_size_.resize(physical + 1, 0);
    ++group_size_[physical];
  }
  add_late_ends(data_->spans);
  extend_caches({});
}

void TimelineView::append(engine::TimelineChunk chunk) {
  if (!data_) return;
  ++generation_;
  // data_ and growing_ are two holders: a third (an export, a summary) keeps the timeline it took.
  if (!growing_ || growing_.use_count() > 2) {
    auto copy = std::make_shared<engine::TimelineData>(*data_);
    const auto chosen = selected();
    const auto forgotten = forgotten_before_ns_;
    adopt(copy);
    growing_ = std::move(copy);
    forgotten_before_ns_ = forgotten;
    apply_filter();
    if (chosen) state_->select(TimelineViewState::Selection{data_.get(), *chosen});
  }
  if (chunk.empty()) return;
  const auto chosen = selected();
  const auto chosen_span = chosen ? std::optional(data_->spans[*chosen]) : std::nullopt;
  add_late_ends(chunk.spans);
  const auto change = engine::append(*growing_, std::move(chunk));
  index_.extend(change.spans);
  extend_caches(change);
  if (chosen_span && *chosen >= change.spans) {
    // It moved to make room for a batch that started earlier: find it again among those that moved.
    std::optional<std::uint32_t> found;
    for (auto i = static_cast<std::uint32_t>(change.spans); i < data_->spans.size() && !found; ++i) {
      const auto& s = data_->spans[i];
      if (s.batch == chosen_span->batch && s.gpu == chosen_span->gpu && s.start == chosen_span->start) found = i;
    }
    state_->select(found ? std::optional(TimelineViewState::Selection{data_.get(), *found}) : std::nullopt);
  } else if (chosen) {
    selection_moved();  // its pipeline stages may have moved, or may just have run
  }
  rebuild_rows();  // a model's first queue sample or a server's first transfer adds a lane
  state_->grow(ns(data_->end));
  update();
}

void TimelineView::forget_before(std::int64_t t_ns) {
  if (!growing_) return;  // only a timeline the view grows has history to let go
  ++generation_;
  const auto chosen = selected();
  const auto cut = engine::forget_before(*growing_, engine::Time::nanoseconds(t_ns));
  forgotten_before_ns_ = std::max(forgotten_before_ns_, t_ns);
  state_->forget_before(t_ns);
  if (!cut.any()) return;
  index_.forget(cut.spans);
  // Positions moved everywhere: the caches start again, in one pass over what is kept.
  reset_caches();
  add_late_ends(data_->spans);
  extend_caches({});
  if (chosen)
    state_->select(*chosen >= cut.spans ? std::optional(TimelineViewState::Selection{
                                              data_.get(), static_cast<std::uint32_t>(*chosen - cut.spans)})
                                        : std::nullopt);
  rebuild_rows();
  update();
}

void TimelineView::reset_caches() {
  late_prefix_.assign(index_.rows(), std::vector<std::uint32_t>{0});
  sparklines_.assign(index_.rows(), {});
  sparkline_cache_.assign(index_.rows(), {});
  sparkline_end_ns_ = INT64_MIN;
  late_ends_ns_.clear();
  const auto models = data_ ? data_->models.size() : 0;
  queue_by_model_.assign(models, {});
  drops_by_model_.assign(models, {});
  longest_transfer_ = 0;
  nic_lanes_.clear();
  transfer_lanes_.clear();
  server_nic_lane_.clear();
}

void TimelineView::add_late_ends(std::span<const engine::TimelineSpan> spans) {
  const auto before = static_cast<std::ptrdiff_t>(late_ends_ns_.size());
  for (const auto& s : spans)
    if (s.late > 0) late_ends_ns_.push_back(ns(s.end));
  std::sort(late_ends_ns_.begin() + before, late_ends_ns_.end());
  std::inplace_merge(late_ends_ns_.begin(), late_ends_ns_.begin() + before, late_ends_ns_.end());
}

void TimelineView::extend_caches(const engine::TimelineChange& change) {
  for (std::size_t r = 0; r < index_.rows(); ++r) {
    auto& prefix = late_prefix_[r];
    const auto spans = index_.spans(r);
    const auto boxes = index_.boxes(r);
    const auto kept = static_cast<std::size_t>(std::ranges::lower_bound(spans, change.spans) - spans.begin());
    prefix.resize(kept + 1);
    for (auto k = kept; k < boxes.size(); ++k)
      prefix.push_back(prefix.back() + (boxes[k].late > 0 ? 1u : 0u));
  }
  // Lists of positions in the data's order: what moved is each list's tail.
  const auto extend = [](std::vector<std::vector<std::size_t>>& by_model, std::size_t from, const auto& items) {
    for (auto& list : by_model)
      list.erase(std::ranges::lower_bound(list, from), list.end());
    for (auto i = from; i < items.size(); ++i)
      if (items[i].model < by_model.size()) by_model[items[i].model].push_back(i);
  };
  extend(queue_by_model_, change.queue, data_->queue);
  extend(drops_by_model_, change.drops, data_->drops);
  for (auto i = change.transfers; i < data_->transfers.size(); ++i)
    longest_transfer_ = std::max(longest_transfer_, ns(data_->transfers[i].end - data_->transfers[i].start));
  extend_nic_lanes(change.transfers);
  refresh_sparklines();
}

void TimelineView::extend_nic_lanes(std::size_t from) {
  const auto& transfers = data_->transfers;
  const auto& servers = data_->gpu_server;
  if (servers.size() != data_->gpus.size()) {
    // The timeline does not say which server a slot is on: one lane carries every transfer.
    if (transfers.empty()) return;
    if (nic_lanes_.empty()) nic_lanes_.push_back({tr("network transfers"), {}});
    auto& all = nic_lanes_.front().transfers;
    all.resize(std::min(all.size(), from));
    for (auto i = static_cast<std::uint32_t>(all.size()); i < transfers.size(); ++i)
      all.push_back(i);
    transfer_lanes_.assign(transfers.size(), {0, 0});
    return;
  }
  // A transfer holds the sender's uplink and the receiver's downlink (engine/dataplane/network_links.h).
  const auto known = [&](const engine::TransferSpan& t) {
    return t.from_gpu < servers.size() && t.to_gpu < servers.size();
  };
  const auto lane = [&](const engine::TransferSpan& t, bool down) -> std::uint32_t& {
    return server_nic_lane_[2 * servers[down ? t.to_gpu : t.from_gpu] + (down ? 1 : 0)];
  };
  server_nic_lane_.resize(2 * data_->server_names.size(), UINT32_MAX);
  const bool new_lane = std::any_of(transfers.begin() + static_cast<std::ptrdiff_t>(from), transfers.end(),
                                    [&](const engine::TransferSpan& t) {
                                      return known(t) && (lane(t, false) == UINT32_MAX || lane(t, true) == UINT32_MAX);
                                    });
  if (new_lane) {
    // Lanes are sorted by label, so a server's first transfer moves the others: lay them all out again.
    from = 0;
    server_nic_lane_.assign(server_nic_lane_.size(), UINT32_MAX);
    for (const auto& t : transfers)
      if (known(t)) lane(t, false) = lane(t, true) = 0;
    std::vector<std::pair<QString, std::size_t>> labels;  // and its place in server_nic_lane_
    for (std::size_t k = 0; k < server_nic_lane_.size(); ++k)
      if (server_nic_lane_[k] == 0)
        labels.emplace_back(tr("NIC %1 %2")
                                .arg(k % 2 ? QStringLiteral("↓") : QStringLiteral("↑"),
                                     QString::fromStdString(data_->server_names[k / 2])),
                            k);
    std::ranges::sort(labels);
    nic_lanes_.clear();
    for (const auto& [label, k] : labels) {
      server_nic_lane_[k] = static_cast<std::uint32_t>(nic_lanes_.size());
      nic_lanes_.push_back({label, {}});
    }
  }
  for (auto& nic : nic_lanes_)
    nic.transfers.erase(std::ranges::lower_bound(nic.transfers, static_cast<std::uint32_t>(from)), nic.transfers.end());
  transfer_lanes_.resize(from);
  transfer_lanes_.resize(transfers.size(), {0, 0});
  for (auto i = static_cast<std::uint32_t>(from); i < transfers.size(); ++i) {
    const auto& t = transfers[i];
    if (!known(t)) continue;
    transfer_lanes_[i] = {lane(t, false), lane(t, true)};
    nic_lanes_[lane(t, false)].transfers.push_back(i);
    nic_lanes_[lane(t, true)].transfers.push_back(i);
  }
}

void TimelineView::refresh_sparklines() {
  if (!data_) return;
  // Over the history kept: the whole run, or a live view's bounded window of it.
  const auto from = std::max<std::int64_t>(0, forgotten_before_ns_);
  const auto end = ns(data_->end);
  // A bin's worth of new run moves the bars; less would redraw them for nothing every refresh.
  if (sparkline_end_ns_ != INT64_MIN && sparkline_from_ns_ == from &&
      end - sparkline_end_ns_ < (end - from) / kSparklineWidth)
    return;
  sparkline_from_ns_ = from;
  sparkline_end_ns_ = end;
  for (std::size_t r = 0; r < index_.rows(); ++r)
    sparklines_[r] = engine::busy_profile(index_, r, engine::Time::nanoseconds(from), data_->end, kSparklineWidth);
  sparkline_cache_.assign(index_.rows(), {});
}

}  // namespace servescope::widgets
