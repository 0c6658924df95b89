// Fast queries over a timeline for painting and hit testing (Qt Creator's timeline model, docs
// gui-anchors §0 item 2): one row per slot, grouped by physical GPU; per row its spans sorted by
// start with a running maximum of their ends (the "end index"), so the spans that overlap a time
// window are found by two binary searches whatever the zoom. Batches of one pipeline request
// group (the same first request) are linked across rows.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "engine/timeline/timeline_data.h"

namespace servescope::engine {

class TimelineIndex {
 public:
  // What painting needs of a batch, kept per row side by side in memory: a pass over a row's
  // window reads it sequentially instead of hopping through the run's start-ordered spans.
  struct Box {
    Time start, end;
    std::uint32_t model = 0;
    std::uint32_t late = 0;  // requests past their deadline
    bool preempted = false;
    RequestId group = 0;  // TimelineSpan::first_request: one pipeline batch's stages share it
  };

  TimelineIndex() = default;
  explicit TimelineIndex(const TimelineData& data);  // keeps a pointer: `data` must outlive it
  explicit TimelineIndex(TimelineData&&) = delete;

  // The data grew (timeline_growth.h): spans from `from_span` on are new or moved, those before
  // it are where they were. Costs what changed, not the run (a run read whole is extended from 0).
  void extend(std::size_t from_span);
  // The data's first `spans` spans were let go and the rest moved to the front.
  void forget(std::size_t spans);

  std::size_t rows() const { return rows_.size(); }
  std::uint32_t slot(std::size_t row) const { return rows_[row].slot; }
  std::optional<std::size_t> row_of_slot(std::uint32_t slot) const;
  // Indices into TimelineData::spans, by start.
  std::span<const std::uint32_t> spans(std::size_t row) const { return rows_[row].spans; }
  // The same batches, compact (boxes(row)[k] is spans(row)[k]).
  std::span<const Box> boxes(std::size_t row) const { return rows_[row].boxes; }
  // The first position at or after `from` in spans(row) whose start is at or after `t`, found
  // by galloping forward (cheap when it is near, as when painting pixel column by column).
  std::size_t next_starting_at(std::size_t row, std::size_t from, Time t) const;

  // Positions [first, last) in spans(row) that may overlap [from, to): every span that does is
  // inside, and a span outside does not. Within a row spans rarely overlap, so few are extra.
  std::pair<std::size_t, std::size_t> range(std::size_t row, Time from, Time to) const;
  // The span under time `at` in `row` (the latest-starting one that covers it), if any.
  std::optional<std::uint32_t> hit(std::size_t row, Time at) const;
  // Every span carrying the same request group as `span` (itself included), by start.
  std::vector<std::uint32_t> linked(std::uint32_t span) const;

 private:
  struct Row {
    std::uint32_t slot = 0;
    std::vector<std::uint32_t> spans;
    std::vector<Box> boxes;
    std::vector<Time> max_end;  // max_end[k] = the largest end among spans[0..k]
  };
  void add(Row& row, std::uint32_t span);
  const TimelineData* data_ = nullptr;
  std::vector<Row> rows_;
  std::vector<std::size_t> row_of_slot_;
  std::vector<std::uint32_t> by_group_;  // span indices sorted by first_request, then start
};

}  // namespace servescope::engine
