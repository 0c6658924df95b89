// Turning untrusted JSON text into a value without letting the text decide how deep we recurse,
// how much memory we take, or which of two equal keys counts (docs/formats.md
// "Files from elsewhere").
//
// Every file and frame ServeScope reads goes through parse_json_text:
//  - nesting is bounded (kMaxJsonDepth), so no later copy, dump() or comparison of the value can
//    overflow the stack;
//  - the memory the parsed value would take is estimated from the text before anything is built,
//    and text that would take more than its budget is refused with nothing allocated;
//  - an object with the same key twice is refused: "last one wins" would silently turn a
//    rate_rps of -5 into 15000;
//  - syntax errors, invalid UTF-8 and numbers that do not fit a double are refused.
// Each refusal is an InputError naming the file and the line and column, or the JSON path.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace servescope {

// Deeper than any ServeScope document (a run inside a project nests about 8 levels).
inline constexpr std::size_t kMaxJsonDepth = 64;

struct JsonLimits {
  std::size_t max_depth = kMaxJsonDepth;
  // The parsed value may take this many bytes of memory per byte of text, at least
  // min_budget_bytes and at most max_budget_bytes. Rows of numbers written compactly take about
  // nine times their text once parsed; a text of empty arrays ("[],[],…") or one-letter strings
  // takes 18 to 30 times its size, and is refused before anything is built.
  std::size_t bytes_per_text_byte = 12;
  std::size_t min_budget_bytes = std::size_t{256} << 20;
  std::size_t max_budget_bytes = std::size_t{2} << 30;
};

// The memory a value read from `text_bytes` of text may take under `limits`: what
// parse_json_text allows the parsed value, and what the rows of a packed table inside it
// (engine/timeline/timeline_packing.h) may take once built, however well they compressed.
std::size_t json_memory_budget(std::size_t text_bytes, const JsonLimits& limits = {});

// Throws InputError naming `file` (a path, or a description such as "control frame from
// 10.0.0.7") when the text is not acceptable JSON under `limits`.
nlohmann::json parse_json_text(std::string_view text, const std::string& file, const JsonLimits& limits = {});

// The estimate parse_json_text checks against the budget: the bytes a parsed value of `text`
// takes, from one pass over the text that allocates nothing. Exposed for tests and benchmarks.
std::size_t estimated_json_memory_bytes(std::string_view text);

}  // namespace servescope
