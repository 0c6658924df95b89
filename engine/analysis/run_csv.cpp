#include "engine/analysis/run_csv.h"

#include <iomanip>

namespace servescope::engine {
namespace {

// RFC 4180: quote a field that holds a comma, a quote or a line break; double inner quotes.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void rows(std::ostream& out, const char* chart, const Series& s) {
  for (const auto& p : s.points)
    out << chart << ',' << field(s.name) << ',' << p.x << ',' << p.y << "\r\n";
}

}  // namespace

void write_run_csv(std::ostream& out, const RunSeries& s) {
  out << std::setprecision(10) << "chart,series,x,y\r\n";
  rows(out, "attainment_pct_by_time_s", s.attainment_pct);
  rows(out, "goodput_rps_by_time_s", s.goodput_rps);
  for (const auto& busy : s.busy_by_type)
    rows(out, "busy_pct_by_time_s", busy);
  rows(out, "gpus_by_time_s", s.used_gpus);
  rows(out, "gpus_by_time_s", s.advised_gpus);
  rows(out, "batches_by_size", s.batch_sizes);
  rows(out, "fraction_by_latency_ms", s.latency_cdf);
}

}  // namespace servescope::engine
