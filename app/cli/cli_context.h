// What every servescope-cli subcommand shares: how it prints (text or --json) and how it ends.
// Exit status: 0 success, 2 bad input or usage (with a message naming the file and the place),
// 1 anything else.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>

namespace servescope::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
// `live loadgen`: every request got its outcome, but the deployment lost some (a worker or the
// scheduler went): a script must not read the run as a clean one.
inline constexpr int kExitRequestsLost = 3;

struct GlobalOptions {
  bool json = false;
};

// A subcommand's body: returns the exit status. Errors thrown out of it are turned into
// messages and statuses by main().
using CommandBody = std::function<int()>;

// Each command file registers its subcommand; `run` receives the body to execute.
void add_validate_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_info_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_import_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_demo_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_simulate_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_fit_interference_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_goodput_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_plan_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_sweep_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_estimate_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_profile_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_calibrate_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_predict_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_export_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_live_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_gpu_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);
void add_measure_interference_command(CLI::App& app, const GlobalOptions& global, CommandBody& run);

// The command's own report (text or --json). It is standard output unless an output file is
// "-" (standard output), in which case the report goes to standard error.
std::ostream& report_stream();
void print_json(const nlohmann::json& j);

// Checks a command's output paths before it starts its work (empty ones are not asked for):
// a missing or read-only folder is reported now, not after a long simulation. At most one may be
// "-", and it moves the report to standard error. Throws Error naming the path.
void check_outputs(std::initializer_list<std::string_view> paths);

// Throws QueryError naming the option when one given on the command line has an empty value
// (`-o ''`, `--timeline ''`). An empty path names nothing, and here it would read as the option
// left out: the run would succeed and write nothing. check_outputs() cannot tell the two apart,
// so every option is checked once after parsing.
void refuse_empty_values(const CLI::App& app);

// A list of positive integers from an option: "1,2,4", "1-8" or "1-4,8" (each at most `max`).
// Throws CLI::ValidationError naming the option and the item.
std::vector<int> parse_int_list(const std::string& text, const std::string& option, int max = 1'000'000);

}  // namespace servescope::cli
