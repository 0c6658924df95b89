#include "engine/timeline/request_story.h"

#include <algorithm>
#include <cstdio>

#include "engine/timeline/request_flow.h"
#include "model/core/text.h"

namespace servescope::engine {
namespace {

std::string story_ms(Duration d) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.3f ms", d.to_ms());
  return buffer;
}

std::string at(Time t) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.6f s", t.to_s());
  return buffer;
}

std::string drop_reason(DropReason why) {
  switch (why) {
    case DropReason::DeadlineUnreachable:
      return "it could no longer meet its deadline, even in a batch of its own";
    case DropReason::WindowDrop:
      return "it would have kept its batch below the target size (Symphony's window drop, seed 002 §3.2)";
    case DropReason::Preempted:
      return "its batch was preempted and it could not be served in time after";
    case DropReason::NoCapacity:
      return "no GPU of the plan could take it in time";
    case DropReason::WorkerLost:
      return "the worker running it was lost";
  }
  return std::string(to_string(why));
}

}  // namespace

std::optional<RequestStory> request_story(const TimelineData& data, const TimelineIndex& index, RequestId id,
                                          const std::string& decides) {
  RequestStory story;
  story.request = id;
  // The batches that carried it, in start order (a pipeline carries it through every stage;
  // a preempted batch carried it too, and lost the work).
  std::vector<std::uint32_t> carried;
  bool known = false;
  for (std::uint32_t i = 0; i < data.spans.size(); ++i)
    for (const auto& r : data.requests_of(i))
      if (r.id == id) {
        carried.push_back(i);
        if (!known) {
          story.arrival = r.arrival;
          story.deadline = r.deadline;
          story.model = data.spans[i].model;
          known = true;
        }
      }
  const auto drop = std::ranges::find_if(data.drops, [&](const DropMark& d) { return d.request == id; });
  if (!known && drop == data.drops.end()) return std::nullopt;
  if (!known) {
    story.model = drop->model;
    // A request dropped before any batch took it: its arrival and its wait come from the drop.
    if (drop->arrival) {
      story.arrival = *drop->arrival;
      story.deadline = drop->deadline;
      known = true;
    }
  }
  const auto slo = story.model < data.model_slo.size() ? data.model_slo[story.model] : Duration();
  const auto& model = story.model < data.models.size() ? data.models[story.model] : std::string("?");
  if (known) {
    story.steps.push_back({StoryStep::Kind::Arrival,
                           story.arrival,
                           story.arrival,
                           {},
                           {},
                           "A " + model + " request arrives at " + at(story.arrival),
                           "its deadline is " + at(story.deadline) + ", its SLO " + story_ms(slo) + " later"});
  }
  if (carried.empty() && known && drop->time > story.arrival) {
    story.steps.push_back({StoryStep::Kind::Waiting,
                           story.arrival,
                           drop->time,
                           {},
                           {},
                           "It waits " + story_ms(drop->time - story.arrival) + " in " + model + "'s queue",
                           "and no batch takes it (the next step says why)"});
  }
  if (!carried.empty()) {
    const auto& first = data.spans[carried.front()];
    if (first.start > story.arrival)
      story.steps.push_back({StoryStep::Kind::Waiting,
                             story.arrival,
                             first.start,
                             {},
                             {},
                             "It waits " + story_ms(first.start - story.arrival) + " in " + model + "'s queue",
                             "until a batch takes it (the next step says why then)"});
  }
  // Each batch that carried it, with the transfers that moved its output.
  std::vector<std::uint32_t> transfers_seen;
  for (std::size_t k = 0; k < carried.size(); ++k) {
    const auto i = carried[k];
    const auto& s = data.spans[i];
    const auto stages = index.linked(i);
    const auto stage = std::ranges::find(stages, i) - stages.begin();
    std::string title = "Batch " + std::to_string(s.batch) + " (" + std::to_string(s.size) +
                        (s.size == 1 ? " request" : " requests") + ") runs on " + data.gpus[s.gpu] + " for " +
                        story_ms(s.end - s.start);
    if (stages.size() > 1)
      title += " (stage " + std::to_string(stage + 1) + " of " + std::to_string(stages.size()) + ")";
    std::string why;
    if (s.window_close > s.window_open)
      why = "it could start from " + at(s.window_open) + " to " + at(s.window_close) +
            " (its schedulable window: the latest start that meets the head's deadline) and started at " + at(s.start);
    else if (k == 0)
      why = decides;
    else
      why = "the next stage of its pipeline, on the pool the plan gave it";
    if (s.preempted) {
      title += ", and is preempted";
      why = "a larger batch took the GPU: this batch's work is lost and its requests wait again";
    }
    story.steps.push_back({StoryStep::Kind::Batch, s.start, s.end, i, {}, title, why});
    for (const auto& step : flow_of(data, index, i)) {
      if (step.kind != FlowStep::Kind::Transfer) continue;
      const auto& t = data.transfers[step.index];
      if (t.batch != s.batch || std::ranges::find(transfers_seen, step.index) != transfers_seen.end()) continue;
      transfers_seen.push_back(step.index);
      story.steps.push_back({StoryStep::Kind::Transfer,
                             t.start,
                             t.end,
                             {},
                             step.index,
                             "Its feature map crosses the network: " + data.gpus[t.from_gpu] + " → " +
                                 data.gpus[t.to_gpu] + ", " + format_bytes(t.bytes) + " in " +
                                 story_ms(t.end - t.start),
                             "it holds the sender's uplink and the receiver's downlink (seed 000 §4)"});
    }
  }
  if (drop != data.drops.end()) {
    story.steps.push_back({StoryStep::Kind::Dropped,
                           drop->time,
                           drop->time,
                           {},
                           {},
                           "It is dropped at " + at(drop->time) + " (" + std::string(to_string(drop->reason)) + ")",
                           "because " + drop_reason(drop->reason)});
  } else if (!carried.empty()) {
    Time end;
    for (const auto i : carried)
      if (!data.spans[i].preempted) end = std::max(end, data.spans[i].end);
    const bool late = end > story.deadline;
    story.steps.push_back({StoryStep::Kind::Finished,
                           end,
                           end,
                           carried.back(),
                           {},
                           (late ? "It finishes late, " : "It finishes on time, ") + std::string("after ") +
                               story_ms(end - story.arrival),
                           late ? "past its deadline by " + story_ms(end - story.deadline)
                                : "with " + story_ms(story.deadline - end) + " to spare"});
  }
  std::ranges::stable_sort(story.steps, {}, &StoryStep::at);
  return story;
}

std::optional<RequestId> request_to_tell(const TimelineData& data, Time after, bool dropped) {
  if (dropped) {
    const auto d = std::ranges::find_if(data.drops, [&](const DropMark& m) { return m.time >= after && m.request; });
    if (d != data.drops.end()) return d->request;
    return std::nullopt;
  }
  const auto from = std::ranges::lower_bound(data.spans, after, {}, &TimelineSpan::start) - data.spans.begin();
  std::optional<RequestId> any;
  for (auto i = static_cast<std::size_t>(from); i < data.spans.size(); ++i) {
    const auto requests = data.requests_of(i);
    if (requests.empty()) continue;
    if (data.spans[i].late > 0) return requests.front().id;
    if (!any) any = requests.front().id;
  }
  return any;
}

}  // namespace servescope::engine
