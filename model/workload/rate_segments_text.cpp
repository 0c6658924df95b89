#include "model/workload/rate_segments_text.h"

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope {
namespace {

double number(std::string_view text, std::string_view what, std::size_t segment) {
  if (const auto v = parse_finite_double(text)) return *v;
  throw QueryError("segment " + std::to_string(segment) + ": " + std::string(what) + " " +
                   quote_for_message(trim(text)) + " is not a number");
}

}  // namespace

std::vector<RateSegment> parse_rate_segments(std::string_view text) {
  std::vector<RateSegment> out;
  std::size_t segment = 0;
  while (!trim(text).empty()) {
    ++segment;
    const auto comma = text.find(',');
    const auto part = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const auto colon = part.find(':');
    if (colon == std::string_view::npos)
      throw QueryError("segment " + std::to_string(segment) + ": " + quote_for_message(part) +
                       " is not SECONDS:MULTIPLIER (10:1.5 is 10 s at 1.5 times the rate)");
    const double seconds = number(part.substr(0, colon), "the length", segment);
    const double multiplier = number(part.substr(colon + 1), "the multiplier", segment);
    if (!(seconds > 0) || seconds > kMaxFileDurationUs / 1e6)
      throw QueryError("segment " + std::to_string(segment) + ": a length must be positive and at most " +
                       format_number(kMaxFileDurationUs / 1e6) + " s");
    if (multiplier < 0 || (multiplier > 0 && multiplier < kMinNonZeroWeight))
      throw QueryError("segment " + std::to_string(segment) + ": a multiplier must be 0 or at least " +
                       format_number(kMinNonZeroWeight));
    out.push_back({Duration::from_s(seconds), multiplier});
  }
  if (out.empty()) throw QueryError("give at least one segment, SECONDS:MULTIPLIER");
  return out;
}

std::string format_rate_segments(const std::vector<RateSegment>& segments) {
  std::string out;
  for (const auto& s : segments)
    out += (out.empty() ? "" : ", ") + format_number(s.duration.to_s()) + ":" + format_number(s.rate_multiplier);
  return out;
}

}  // namespace servescope
