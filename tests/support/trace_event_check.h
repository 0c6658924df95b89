// An independent check of the Chrome trace-event format ("JSON Object Format" of the Trace Event
// Format document, which chrome://tracing and Perfetto read): an object whose traceEvents is an
// array of events, each with a phase, a name, integer pid and tid; complete events ("X") with a
// numeric ts and a non-negative dur on a process that metadata names, batches on named threads;
// counters ("C") with numeric args; instant events ("i") with ts and a g/p/t scope; metadata
// ("M") with args. Returns what is wrong, or "".
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace servescope::test {

struct TraceCounts {
  std::size_t complete = 0, counters = 0, metadata = 0, instants = 0;
};

inline std::string check_trace_events(const nlohmann::json& trace, TraceCounts* counts = nullptr) {
  if (!trace.is_object()) return "not a JSON object";
  const auto events = trace.find("traceEvents");
  if (events == trace.end() || !events->is_array()) return "no traceEvents array";
  std::set<std::pair<std::uint64_t, std::uint64_t>> threads;
  std::set<std::uint64_t> processes;
  TraceCounts n;
  std::size_t k = 0;
  for (const auto& e : *events) {
    const auto where = "event " + std::to_string(k++) + ": ";
    if (!e.is_object()) return where + "not an object";
    if (!e.contains("ph") || !e["ph"].is_string()) return where + "no phase";
    if (!e.contains("name") || !e["name"].is_string()) return where + "no name";
    if (!e.contains("pid") || !e["pid"].is_number_unsigned()) return where + "no integer pid";
    if (!e.contains("tid") || !e["tid"].is_number_unsigned()) return where + "no integer tid";
    const auto ph = e["ph"].get<std::string>();
    const auto pid = e["pid"].get<std::uint64_t>(), tid = e["tid"].get<std::uint64_t>();
    if (ph == "M") {
      ++n.metadata;
      if (!e.contains("args") || !e["args"].is_object()) return where + "metadata without args";
      if (e["name"] == "process_name") processes.insert(pid);
      if (e["name"] == "thread_name") threads.insert({pid, tid});
    } else if (ph == "X") {
      ++n.complete;
      if (!e.contains("ts") || !e["ts"].is_number()) return where + "complete event without ts";
      if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0)
        return where + "complete event without a non-negative dur";
      if (!processes.contains(pid)) return where + "on a process no metadata names";
      if (e.value("cat", "") == "batch" && !threads.contains({pid, tid})) return where + "on an unnamed thread";
    } else if (ph == "C") {
      ++n.counters;
      if (!e.contains("ts") || !e["ts"].is_number()) return where + "counter without ts";
      if (!e.contains("args") || !e["args"].is_object()) return where + "counter without args";
      for (const auto& [key, value] : e["args"].items())
        if (!value.is_number()) return where + "counter arg " + key + " is not a number";
    } else if (ph == "i") {
      ++n.instants;
      if (!e.contains("ts") || !e["ts"].is_number()) return where + "instant event without ts";
      if (e.contains("s") && e["s"] != "g" && e["s"] != "p" && e["s"] != "t") return where + "bad instant scope";
    } else {
      return where + "unexpected phase " + ph;
    }
  }
  if (counts) *counts = n;
  return {};
}

}  // namespace servescope::test
