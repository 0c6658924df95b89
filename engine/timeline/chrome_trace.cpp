#include "engine/timeline/chrome_trace.h"

#include <nlohmann/json.hpp>

namespace servescope::engine {
namespace {

// Microseconds with nanosecond resolution, as the format's "ts" and "dur" expect.
void us(std::ostream& out, Duration d) {
  const auto ns = d.count_ns();
  const auto whole = ns / 1000, frac = ns % 1000;
  if (ns < 0 && frac != 0) {  // keep it exact for negative times too
    out << '-';
    us(out, Duration::nanoseconds(-ns));
    return;
  }
  out << whole;
  if (frac != 0) {
    char buf[5] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                   static_cast<char>('0' + frac % 10), 0};
    out << buf;
  }
}

std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump();  // escapes quotes, control characters and bad UTF-8 alike
}

}  // namespace

void write_chrome_trace(std::ostream& out, const TimelineData& t) {
  const auto physical = static_cast<std::uint32_t>(t.physical_names.size());
  const std::uint32_t network_pid = physical, queues_pid = physical + 1;
  bool first = true;
  const auto next = [&]() -> std::ostream& {
    out << (first ? "\n" : ",\n");
    first = false;
    return out;
  };
  out << R"({"displayTimeUnit":"ms","otherData":{"generator":"servescope","system":)" << quoted(t.system)
      << R"(},"traceEvents":[)";
  for (std::uint32_t p = 0; p < physical; ++p) {
    next() << R"({"ph":"M","name":"process_name","pid":)" << p << R"(,"tid":0,"args":{"name":)"
           << quoted(t.physical_names[p]) << "}}";
    next() << R"({"ph":"M","name":"process_sort_index","pid":)" << p << R"(,"tid":0,"args":{"sort_index":)" << p
           << "}}";
  }
  for (std::uint32_t g = 0; g < t.gpus.size(); ++g) {
    const auto p = g < t.gpu_physical.size() ? t.gpu_physical[g] : g;
    std::string what;  // "V100, 1/2"
    if (g < t.gpu_types.size()) what = t.gpu_types[g];
    if (g < t.gpu_shares.size() && !t.gpu_shares[g].empty() && t.gpu_shares[g] != "1")
      what += (what.empty() ? "" : ", ") + t.gpu_shares[g];
    const std::string label = what.empty() ? t.gpus[g] : t.gpus[g] + " (" + what + ")";
    next() << R"({"ph":"M","name":"thread_name","pid":)" << p << R"(,"tid":)" << g << R"(,"args":{"name":)"
           << quoted(label) << "}}";
  }
  next() << R"({"ph":"M","name":"process_name","pid":)" << network_pid << R"(,"tid":0,"args":{"name":"network"}})";
  next() << R"({"ph":"M","name":"process_name","pid":)" << queues_pid << R"(,"tid":0,"args":{"name":"queues"}})";

  std::vector<std::string> model_names;
  for (const auto& m : t.models)
    model_names.push_back(quoted(m));
  const std::string unknown = quoted("?");
  for (const auto& s : t.spans) {
    const auto p = s.gpu < t.gpu_physical.size() ? t.gpu_physical[s.gpu] : s.gpu;
    auto& o = next();
    o << R"({"ph":"X","cat":"batch","name":)" << (s.model < model_names.size() ? model_names[s.model] : unknown)
      << R"(,"pid":)" << p << R"(,"tid":)" << s.gpu << R"(,"ts":)";
    us(o, s.start);
    o << R"(,"dur":)";
    us(o, s.end - s.start);
    o << R"(,"args":{"batch":)" << s.batch << R"(,"size":)" << s.size << R"(,"late":)" << s.late
      << R"(,"first_request":)" << s.first_request << R"(,"preempted":)" << (s.preempted ? "true" : "false");
    if (s.window_close > s.window_open) {
      o << R"(,"window_open_us":)";
      us(o, s.window_open);
      o << R"(,"window_close_us":)";
      us(o, s.window_close);
    }
    o << "}}";
  }
  for (const auto& s : t.transfers) {
    auto& o = next();
    o << R"({"ph":"X","cat":"transfer","name":"transfer","pid":)" << network_pid << R"(,"tid":)" << s.from_gpu
      << R"(,"ts":)";
    us(o, s.start);
    o << R"(,"dur":)";
    us(o, s.end - s.start);
    o << R"(,"args":{"batch":)" << s.batch << R"(,"bytes":)" << s.bytes << R"(,"to_gpu":)" << s.to_gpu << "}}";
  }
  for (const auto& q : t.queue) {
    auto& o = next();
    o << R"({"ph":"C","name":)" << (q.model < model_names.size() ? quoted("queue " + t.models[q.model]) : unknown)
      << R"(,"pid":)" << queues_pid << R"(,"tid":0,"ts":)";
    us(o, q.time);
    o << R"(,"args":{"depth":)" << q.depth << "}}";
  }
  for (const auto& d : t.drops) {
    auto& o = next();
    o << R"({"ph":"i","s":"p","name":)"
      << (d.model < model_names.size() ? quoted("drop " + t.models[d.model]) : unknown) << R"(,"pid":)" << queues_pid
      << R"(,"tid":0,"ts":)";
    us(o, d.time);
    o << R"(,"args":{"reason":)" << quoted(std::string(to_string(d.reason))) << "}}";
  }
  out << "\n]}\n";
}

}  // namespace servescope::engine
