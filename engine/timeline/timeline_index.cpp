#include "engine/timeline/timeline_index.h"

#include <algorithm>
#include <numeric>

namespace servescope::engine {

TimelineIndex::TimelineIndex(const TimelineData& data) : data_(&data) {
  // Rows in physical-GPU order, slots of one GPU side by side.
  std::vector<std::uint32_t> order(data.gpus.size());
  std::iota(order.begin(), order.end(), 0u);
  const auto physical = [&](std::uint32_t g) { return g < data.gpu_physical.size() ? data.gpu_physical[g] : g; };
  std::ranges::stable_sort(order, {}, physical);
  row_of_slot_.assign(data.gpus.size(), SIZE_MAX);
  for (const auto g : order) {
    row_of_slot_[g] = rows_.size();
    rows_.push_back(Row{g, {}, {}, {}});
  }
  extend(0);
}

void TimelineIndex::add(Row& row, std::uint32_t i) {
  const auto& span = data_->spans[i];
  row.max_end.push_back(row.max_end.empty() ? span.end : std::max(row.max_end.back(), span.end));
  row.spans.push_back(i);
  row.boxes.push_back({span.start, span.end, span.model, span.late, span.preempted, span.first_request});
}

void TimelineIndex::extend(std::size_t from_span) {
  if (!data_) return;
  const auto& spans = data_->spans;
  // Each row lists its spans in the data's order, so what moved is the tail of every row.
  for (auto& row : rows_) {
    const auto kept = static_cast<std::size_t>(std::ranges::lower_bound(row.spans, from_span) - row.spans.begin());
    row.spans.resize(kept);
    row.boxes.resize(kept);
    row.max_end.resize(kept);
  }
  for (auto i = static_cast<std::uint32_t>(from_span); i < spans.size(); ++i) {
    const auto g = spans[i].gpu;
    if (g < row_of_slot_.size()) add(rows_[row_of_slot_[g]], i);
  }
  const auto group = [&](std::uint32_t i) { return std::pair(spans[i].first_request, i); };
  std::erase_if(by_group_, [&](std::uint32_t i) { return i >= from_span; });
  const auto kept = static_cast<std::ptrdiff_t>(by_group_.size());
  for (auto i = static_cast<std::uint32_t>(from_span); i < spans.size(); ++i)
    by_group_.push_back(i);
  std::ranges::sort(by_group_.begin() + kept, by_group_.end(), {}, group);
  std::ranges::inplace_merge(by_group_, by_group_.begin() + kept, {}, group);
}

void TimelineIndex::forget(std::size_t spans) {
  const auto gone = static_cast<std::uint32_t>(spans);
  for (auto& row : rows_) {
    const auto cut = std::ranges::lower_bound(row.spans, gone) - row.spans.begin();
    row.spans.erase(row.spans.begin(), row.spans.begin() + cut);
    row.boxes.erase(row.boxes.begin(), row.boxes.begin() + cut);
    for (auto& i : row.spans)
      i -= gone;
    // The running maximum starts again from the first span kept.
    row.max_end.clear();
    for (const auto& box : row.boxes)
      row.max_end.push_back(row.max_end.empty() ? box.end : std::max(row.max_end.back(), box.end));
  }
  std::erase_if(by_group_, [&](std::uint32_t i) { return i < gone; });
  for (auto& i : by_group_)
    i -= gone;
}

std::optional<std::size_t> TimelineIndex::row_of_slot(std::uint32_t slot) const {
  if (slot >= row_of_slot_.size() || row_of_slot_[slot] == SIZE_MAX) return std::nullopt;
  return row_of_slot_[slot];
}

std::pair<std::size_t, std::size_t> TimelineIndex::range(std::size_t row, Time from, Time to) const {
  const auto& r = rows_[row];
  // First position whose running end passes `from`: nothing before it reaches into the window.
  const auto first = static_cast<std::size_t>(std::ranges::upper_bound(r.max_end, from) - r.max_end.begin());
  // First position starting at or after `to`: nothing from it on starts inside the window.
  const auto last =
      static_cast<std::size_t>(std::ranges::lower_bound(r.boxes.begin() + static_cast<std::ptrdiff_t>(first),
                                                        r.boxes.end(), to, {}, &Box::start) -
                               r.boxes.begin());
  return {first, std::max(first, last)};
}

std::size_t TimelineIndex::next_starting_at(std::size_t row, std::size_t from, Time t) const {
  const auto& boxes = rows_[row].boxes;
  std::size_t lo = from, step = 1;
  // Gallop: double the stride until past `t`, then search the last stride.
  while (lo + step < boxes.size() && boxes[lo + step].start < t) {
    lo += step;
    step *= 2;
  }
  const auto hi = std::min(boxes.size(), lo + step + 1);
  return static_cast<std::size_t>(std::ranges::lower_bound(boxes.begin() + static_cast<std::ptrdiff_t>(lo),
                                                           boxes.begin() + static_cast<std::ptrdiff_t>(hi), t, {},
                                                           &Box::start) -
                                  boxes.begin());
}

std::optional<std::uint32_t> TimelineIndex::hit(std::size_t row, Time at) const {
  const auto& r = rows_[row];
  const auto [first, last] = range(row, at, at + Duration::nanoseconds(1));
  for (std::size_t k = last; k > first; --k) {
    const auto i = r.spans[k - 1];
    if (data_->spans[i].start <= at && at < data_->spans[i].end) return i;
  }
  return std::nullopt;
}

std::vector<std::uint32_t> TimelineIndex::linked(std::uint32_t span) const {
  const auto group = data_->spans[span].first_request;
  const auto [lo, hi] =
      std::ranges::equal_range(by_group_, group, {}, [&](std::uint32_t i) { return data_->spans[i].first_request; });
  std::vector<std::uint32_t> out(lo, hi);
  std::ranges::sort(out);  // span indices are in start order
  return out;
}

}  // namespace servescope::engine
