#include "engine/dataplane/run_recorder.h"

namespace servescope::engine {

void TimelineRecorder::forget_before(Time t) {
  std::vector<SpanRequest> kept_requests;
  std::erase_if(spans_, [&](const TimelineSpan& s) { return s.end < t; });
  for (auto& s : spans_) {
    const auto at = kept_requests.size();
    kept_requests.insert(kept_requests.end(), requests_.begin() + static_cast<std::ptrdiff_t>(s.requests_at),
                         requests_.begin() + static_cast<std::ptrdiff_t>(s.requests_at + s.size));
    s.requests_at = at;
  }
  requests_ = std::move(kept_requests);
  std::erase_if(transfers_, [&](const TransferSpan& s) { return s.end < t; });
  std::erase_if(queue_, [&](const QueueSample& q) { return q.time < t; });
  std::erase_if(drops_, [&](const DropMark& d) { return d.time < t; });
  std::erase_if(notices_, [&](const RunNotice& n) { return n.time < t; });
  last_sample_.assign(last_sample_.size(), SIZE_MAX);  // they indexed queue_
}

}  // namespace servescope::engine
