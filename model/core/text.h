// Small text helpers shared by the file readers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servescope {

// True when `s` is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view s);

// The longest prefix of `s` of at most `max_bytes` that does not end inside a UTF-8 character
// (a cut text stays readable, and JSON writers take it).
std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes);

// Byte offset of the first ill-formed UTF-8 sequence, or nullopt.
std::optional<std::size_t> first_invalid_utf8(std::string_view s);

// Strict decimal parsing: the whole string must be a finite number. "nan", "inf", "1e999",
// "12abc" and "" are all rejected (nullopt).
std::optional<double> parse_finite_double(std::string_view s);
std::optional<long long> parse_integer(std::string_view s);

// Shortest readable form of a number: 12, 0.25, 1.5e+09.
std::string format_number(double v);
// A number with `digits` after the point: format_fixed(1.5, 2) is "1.50".
std::string format_fixed(double v, int digits);

// A size for people: "812 B", "245 KiB", "1.5 MiB", "3.2 GiB" (three significant digits at most).
std::string format_bytes(std::uint64_t bytes);

std::string_view trim(std::string_view s);
bool iequals(std::string_view a, std::string_view b);

// Shows a value from a file inside an error message: cut to a readable length, control and
// non-UTF-8 bytes escaped.
std::string quote_for_message(std::string_view s);

// `base` if `taken` does not hold it, else the first of base + separator + "2", "3", … that it does
// not: "ppipe", "ppipe #2"; "a100", "a100-2". Names a user adds or the program makes never collide.
std::string unique_name(const std::string& base, const std::function<bool(const std::string&)>& taken,
                        std::string_view separator = " #");

// The candidate nearest to `word` by edit distance when it is near enough to be a typo of it
// (within a third of the word's length, at least one edit): "did you mean …?". nullopt otherwise.
std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates);

// The enumerator among E's first `count` (0 … count − 1) whose to_string, found beside E, is
// `text`: how each file format reads back the names it writes. nullopt when none is.
template <typename E>
std::optional<E> enum_from_string(std::string_view text, int count) {
  for (int k = 0; k < count; ++k)
    if (to_string(static_cast<E>(k)) == text) return static_cast<E>(k);
  return std::nullopt;
}

}  // namespace servescope
