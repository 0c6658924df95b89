#include "engine/sim/request_log.h"

namespace servescope::engine {
namespace {

// Microseconds with the nanoseconds kept: "1234.567".
void put_us(std::ostream& out, Time t) {
  const auto ns = t.count_ns();
  const auto whole = ns / 1000, frac = ns % 1000;
  if (ns < 0 && frac != 0) {
    out << t.to_us();
    return;
  }
  out << whole;
  if (frac != 0) {
    out << '.' << static_cast<char>('0' + frac / 100) << static_cast<char>('0' + frac / 10 % 10)
        << static_cast<char>('0' + frac % 10);
  }
}

// RFC 4180 quoting, only where a name needs it.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

}  // namespace

RequestLogRecorder::RequestLogRecorder(std::ostream& out, std::vector<std::string> models,
                                       std::vector<std::string> gpus)
    : out_(out), models_(std::move(models)), gpus_(std::move(gpus)) {
  for (auto& m : models_)
    m = csv_field(m);
  for (auto& g : gpus_)
    g = csv_field(g);
  out_ << "event,request,model,time_us,end_us,gpu,batch,detail\n";
}

void RequestLogRecorder::row(const char* event, const Request& r, Time at, const Time* end, const std::string& gpu,
                             BatchId batch, const std::string& detail) {
  out_ << event << ',' << r.id << ',' << (r.model < models_.size() ? models_[r.model] : std::to_string(r.model)) << ',';
  put_us(out_, at);
  out_ << ',';
  if (end) put_us(out_, *end);
  out_ << ',' << gpu << ',';
  if (batch) out_ << batch;
  out_ << ',' << detail << '\n';
}

void RequestLogRecorder::on_arrival(const Request& r) {
  const Time deadline = r.deadline;
  row("arrival", r, r.arrival, &deadline, "", 0, "");  // end_us holds the deadline
}

void RequestLogRecorder::on_drop(const Request& r, DropReason why, Time when) {
  row("drop", r, when, nullptr, "", 0, std::string(to_string(why)));
}

void RequestLogRecorder::on_dispatch(const Batch& b, Time now) {
  const auto& gpu = b.gpu < gpus_.size() ? gpus_[b.gpu] : std::to_string(b.gpu);
  const auto detail = "stage " + std::to_string(b.stage) + "; size " + std::to_string(b.requests.size());
  for (const auto& r : b.requests)
    row("dispatch", r, now, &b.start, gpu, b.id, detail);
}

void RequestLogRecorder::on_batch(const Batch& b, Time start, Time end, bool completed) {
  const auto& gpu = b.gpu < gpus_.size() ? gpus_[b.gpu] : std::to_string(b.gpu);
  const auto detail = "stage " + std::to_string(b.stage) + (completed ? "" : "; preempted");
  for (const auto& r : b.requests)
    row("run", r, start, &end, gpu, b.id, detail);
}

void RequestLogRecorder::on_complete(const Request& r, Time, Time end) {
  row("complete", r, end, nullptr, "", 0, end <= r.deadline ? "on time" : "late");
}

void RequestLogRecorder::on_transfer(const Transfer& t, Time start, Time end) {
  const auto name = [&](std::uint32_t g) { return g < gpus_.size() ? gpus_[g] : std::to_string(g); };
  const auto detail = "to " + name(t.to_gpu) + "; " + std::to_string(t.bytes) + " bytes";
  for (const auto& r : t.requests)
    row("transfer", r, start, &end, name(t.from_gpu), t.batch, detail);
}

}  // namespace servescope::engine
