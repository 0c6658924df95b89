// Per-request records streamed as CSV while a run goes: each request's arrival, the dispatch,
// start and end of every stage it ran in, every transfer of its data, and its completion or
// drop with the reason. Rows go straight to the stream, so a long run costs disk, not memory.
// Columns: event,request,model,time_us,end_us,gpu,batch,detail (docs/formats.md, "Request log").
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engine/dataplane/run_recorder.h"

namespace servescope::engine {

class RequestLogRecorder final : public RunRecorder {
 public:
  // `models` and `gpus` name the data plane's indices in the rows.
  RequestLogRecorder(std::ostream& out, std::vector<std::string> models, std::vector<std::string> gpus);

  void on_arrival(const Request& r) override;
  void on_drop(const Request& r, DropReason why, Time when) override;
  void on_dispatch(const Batch& b, Time now) override;
  void on_batch(const Batch& b, Time start, Time end, bool completed) override;
  void on_complete(const Request& r, Time start, Time end) override;
  void on_transfer(const Transfer& t, Time start, Time end) override;

 private:
  void row(const char* event, const Request& r, Time at, const Time* end, const std::string& gpu, BatchId batch,
           const std::string& detail);

  std::ostream& out_;
  std::vector<std::string> models_, gpus_;
};

}  // namespace servescope::engine
