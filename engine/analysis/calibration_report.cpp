#include "engine/analysis/calibration_report.h"

#include <iomanip>

#include "model/core/time.h"

namespace servescope::engine {
namespace {

std::string entry_name(const EntryChange& e) {
  std::string out = e.model;
  if (e.blocks) out += " blocks [" + std::to_string(e.blocks->begin) + ", " + std::to_string(e.blocks->end) + ")";
  return out + " on " + e.gpu + " " + e.share.to_string() + ", batch " + std::to_string(e.batch);
}

}  // namespace

nlohmann::json calibration_to_json(const Calibration& c) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : c.entries) {
    nlohmann::json j = {{"model", e.model},
                        {"gpu", e.gpu},
                        {"share", e.share.to_string()},
                        {"batch", e.batch},
                        {"runs", e.runs},
                        {"refit", e.refit},
                        {"before_p50_us", e.before_p50.to_us()},
                        {"after_p50_us", e.after_p50.to_us()},
                        {"before_p99_us", e.before_p99.to_us()},
                        {"after_p99_us", e.after_p99.to_us()}};
    if (e.blocks) j["blocks"] = {e.blocks->begin, e.blocks->end};
    entries.push_back(std::move(j));
  }
  nlohmann::json contention = nlohmann::json::array();
  for (const auto& k : c.contention)
    contention.push_back({{"gpu", k.gpu},
                          {"share", k.share.to_string()},
                          {"batch", k.batch},
                          {"before", k.before},
                          {"after", k.after},
                          {"alone", k.alone},
                          {"beside", k.beside},
                          {"fitted", k.fitted},
                          {"carried_from", k.carried_from}});
  nlohmann::json spells = nlohmann::json::array();
  for (const auto& s : c.spells)
    spells.push_back({{"gpu", s.gpu},
                      {"before_us", s.before.to_us()},
                      {"after_us", s.after.to_us()},
                      {"pairs", s.pairs},
                      {"lag1", s.lag1}});
  return {{"batches_used", c.batches_used}, {"batches_skipped", c.batches_skipped},
          {"entries", std::move(entries)},  {"contention", std::move(contention)},
          {"spells", std::move(spells)},    {"notes", c.notes}};
}

void write_calibration_report(std::ostream& out, const Calibration& c, const std::string& run_file) {
  out << "calibrated from " << c.batches_used << " batches of " << run_file << " (" << c.batches_skipped
      << " left out)\n";
  for (const auto& e : c.entries) {
    if (!e.refit) continue;
    out << "  " << entry_name(e) << ": median " << format_duration(e.before_p50) << " -> "
        << format_duration(e.after_p50) << " (x" << std::fixed << std::setprecision(2)
        << e.after_p50.to_s() / e.before_p50.to_s() << "), p99 " << format_duration(e.before_p99) << " -> "
        << format_duration(e.after_p99) << " (" << e.runs << " batches)\n"
        << std::defaultfloat;
  }
  for (const auto& k : c.contention) {
    out << "  contention, 2 slots of " << k.gpu << " " << k.share.to_string() << ", batch " << k.batch << ": x"
        << std::fixed << std::setprecision(2) << k.before;
    if (k.fitted)
      out << " -> x" << k.after << " (" << k.beside << " batches beside another slot, " << k.alone << " alone)\n";
    else if (k.carried_from > 0)
      out << " -> x" << k.after << " carried from batch " << k.carried_from << " (" << k.beside
          << " batches beside another slot and " << k.alone << " alone, too few of one kind to fit)\n";
    else
      out << " kept: " << k.beside << " batches beside another slot and " << k.alone
          << " alone, too few of one kind to tell them apart\n";
    out << std::defaultfloat;
  }
  for (const auto& s : c.spells) {
    out << "  spells of " << s.gpu << ": " << (s.before > Duration() ? format_duration(s.before) : "none") << " -> "
        << (s.after > Duration() ? format_duration(s.after) : "none") << " (" << s.pairs
        << " consecutive batches of a slot, their ranks correlated " << std::fixed << std::setprecision(2) << s.lag1
        << ")\n"
        << std::defaultfloat;
  }
  for (const auto& n : c.notes)
    out << "note: " << n << "\n";
}

}  // namespace servescope::engine
