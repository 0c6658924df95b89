// A run's timeline as views and exports read it: every executed batch per vGPU, every transfer,
// each model's queue depth over time, and what the slots are (name, type, share, physical GPU).
// Built from a simulation (and, later, recorded live); kept in the `kind: timeline` file of
// docs/formats.md, which stores rows as arrays under named columns to keep million-span files
// small and readable by column name.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "engine/dataplane/run_layout.h"
#include "engine/dataplane/run_recorder.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {

struct SimulationResult;

// The layout (RunLayout) and what ran on it. Per-slot vectors are as long as `gpus` once read.
struct TimelineData : RunLayout {
  std::vector<std::string> physical_names;  // per physical GPU
  std::vector<TimelineSpan> spans;          // sorted by start, then slot
  std::vector<TransferSpan> transfers;      // sorted by start
  std::vector<QueueSample> queue;           // in time order
  // Every batch's requests (TimelineSpan::requests_at, size); empty when the file had none.
  std::vector<SpanRequest> requests;
  std::vector<DropMark> drops;     // dropped requests, in time order
  std::vector<RunNotice> notices;  // what the serving system said of itself, in time order
  Time end;                        // the latest end of anything above

  std::uint64_t request_count() const;  // requests the spans carried (each stage of a pipeline counts)
  // The requests of span `i` (empty when the timeline keeps none).
  std::span<const SpanRequest> requests_of(std::size_t i) const;
};

TimelineData timeline_of(const SimulationResult& result);
// `timeline` with every time moved by `by`: a live run, timed from its scheduler's start, lined
// up with a simulation of it, timed from its first arrival (the Prediction tab).
TimelineData shifted(TimelineData timeline, Duration by);

// Rows: arrays under named columns, for scripts and other tools (simulate --timeline). Packed: the
// same tables in one compressed string (timeline_packing.h), what projects keep. Both read back.
enum class TimelineEncoding { Rows, Packed };
nlohmann::json to_json(const TimelineData& timeline, TimelineEncoding encoding = TimelineEncoding::Rows);
// Throws InputError naming `file` and the JSON path of the first bad value.
TimelineData timeline_from_json(const nlohmann::json& json, const std::string& file);
TimelineData timeline_from_json(const JsonCursor& root);  // for a timeline inside another document
// Reads a timeline file, or the timeline inside a run file that embeds one.
TimelineData load_timeline(const std::string& path);

}  // namespace servescope::engine
