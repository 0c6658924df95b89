// A timeline's rows packed into one JSON string (docs/formats.md "Packed tables"): what a
// project keeps of each simulated or live run, so that a 20 s run's 51,000 batches, 300,000
// request rows and 230,000 queue samples take 2 MB instead of 141 MB, and opening the project
// decodes none of them until the run is shown.
//
// The tables are stored column by column, each value a varint: ids, arrival and start times as
// deltas from the row before, ends as lengths, deadlines as the change in their slack. Times keep
// their nanoseconds, which the µs rows of the JSON form round to a thousandth.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/timeline/timeline_data.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {

// The value of a timeline's "packed" member: {"encoding", "bytes" (unpacked), "data"}.
nlohmann::json pack_timeline_rows(const TimelineData& timeline);

// Reads the rows of `packed` into `timeline`, whose layout (slots, models) is already read and
// bounds every index. The rows may take what the JSON text of their packed string may
// (json_memory_budget: at least 256 MiB, 12 bytes per byte of text), checked table by table
// before each is built. Throws InputError naming the file and the place, as the JSON rows do.
void unpack_timeline_rows(const JsonCursor& packed, TimelineData& timeline);

// Unpacked bytes one timeline may declare (held while its rows are read; the rows themselves are
// bounded by the memory budget above).
inline constexpr std::uint64_t kMaxUnpackedTimelineBytes = std::uint64_t{192} << 20;

}  // namespace servescope::engine
