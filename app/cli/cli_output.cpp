#include <algorithm>
#include <iostream>
#include <sstream>

#include "app/cli/cli_context.h"
#include "engine/serving/option_schema.h"
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
  std::vector<std::filesystem::path> files;
  for (const auto path : paths) {
    if (path.empty()) continue;
    const std::filesystem::path file(path);
    check_output_path(file);
    if (names_standard_output(file))
      ++to_stdout;
    else
      files.push_back(file);
  }
  if (to_stdout > 1) throw QueryError("only one output can be standard output ('-')");
  check_distinct_outputs(files);
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
  engine::OptionSpec spec;
  spec.type = engine::OptionType::IntegerList;
  spec.min = 1;
  spec.max = max;
  try {
    return std::get<std::vector<int>>(engine::parse_option_value(spec, text));
  } catch (const QueryError& e) {
    throw CLI::ValidationError(option, e.what());
  }
}

}  // namespace servescope::cli
