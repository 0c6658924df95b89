#include <algorithm>
#include <iostream>
#include <sstream>

#include "app/cli/cli_context.h"
#include "model/core/error.h"
#include "model/io/file_io.h"

namespace servescope::cli {

namespace {
bool report_to_stderr = false;
}

std::ostream& report_stream() {
  return report_to_stderr ? std::cerr : std::cout;
}

void print_json(const nlohmann::json& j) {
  report_stream() << j.dump(2) << "\n";
}

void check_outputs(std::initializer_list<std::string_view> paths) {
  int to_stdout = 0;
  for (const auto path : paths) {
    if (path.empty()) continue;
    const std::filesystem::path file(path);
    if (names_standard_output(file)) ++to_stdout;
    check_output_path(file);
  }
  if (to_stdout > 1) throw QueryError("only one output can be standard output ('-')");
  if (to_stdout == 1) report_to_stderr = true;
}

void refuse_empty_values(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options())
    if (option->count() > 0 && option->get_expected_min() > 0 &&
        std::ranges::find(option->results(), "") != option->results().end())
      throw QueryError(option->get_name(false, true) + ": an empty value names nothing; leave the option out instead");
  for (const CLI::App* sub : app.get_subcommands())
    refuse_empty_values(*sub);
}

std::vector<int> parse_int_list(const std::string& text, const std::string& option, int max) {
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto dash = item.find('-', 1);
    try {
      std::size_t used = 0;
      const auto first = item.substr(0, dash);
      const int lo = std::stoi(first, &used);
      if (used != first.size()) throw std::invalid_argument(item);
      int hi = lo;
      if (dash != std::string::npos) {
        const auto last = item.substr(dash + 1);
        hi = std::stoi(last, &used);
        if (used != last.size()) throw std::invalid_argument(item);
      }
      if (lo < 1 || hi < lo || hi > max) throw std::invalid_argument(item);
      for (int v = lo; v <= hi; ++v)
        out.push_back(v);
    } catch (const std::exception&) {
      throw CLI::ValidationError(option, "'" + item + "' is not N or N-M with 1 ≤ N ≤ M ≤ " + std::to_string(max));
    }
  }
  return out;
}

}  // namespace servescope::cli
