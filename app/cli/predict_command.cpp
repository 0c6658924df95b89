// `servescope-cli predict RUN.json -s SCENARIO [--plan PLAN] [-o prediction.json]`: a live run
// (the scheduler's --record) beside the simulator's prediction of it (issue 46; the GUI's
// Prediction tab does the same for a kept run): the same system or plan, the load the run was
// offered (its arrivals over the time they came in), seed, warm-up and latency quantile, with the
// data-plane options given here. Prints attainment, goodput and p99 per model on both sides and
// the largest differences with their measured cause (engine/analysis/prediction_report.h).
#include <iomanip>

#include "app/cli/cli_context.h"
#include "app/cli/signal_handling.h"
#include "app/cli/simulation_args.h"
#include "engine/analysis/decision_record.h"
#include "engine/analysis/live_run_source.h"
#include "engine/analysis/prediction_report.h"
#include "engine/serving/run_result_json.h"
#include "engine/timeline/timeline_data.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "model/io/file_io.h"
#include "model/io/json_text.h"

namespace servescope::cli {
namespace {

nlohmann::json report_json(const engine::PredictionReport& r) {
  const auto row = [](const engine::SideBySide& s) {
    return nlohmann::json{{"model", s.model},
                          {"live_arrivals", s.live_arrivals},
                          {"predicted_arrivals", s.predicted_arrivals},
                          {"live_attainment", s.live_attainment},
                          {"predicted_attainment", s.predicted_attainment},
                          {"live_goodput_rps", s.live_goodput_rps},
                          {"predicted_goodput_rps", s.predicted_goodput_rps},
                          {"live_p99_ms", s.live_p99_ms},
                          {"predicted_p99_ms", s.predicted_p99_ms}};
  };
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : r.models)
    models.push_back(row(m));
  nlohmann::json differences = nlohmann::json::array();
  for (const auto& d : r.differences)
    differences.push_back({{"weight", d.weight}, {"text", d.text}});
  return {{"total", row(r.total)}, {"models", models}, {"differences", differences}, {"notes", r.notes}};
}

void print_report(std::ostream& out, const engine::PredictionReport& r) {
  out << std::left << std::setw(24) << "model" << std::right << std::setw(11) << "on time" << std::setw(11)
      << "predicted" << std::setw(11) << "goodput" << std::setw(11) << "predicted" << std::setw(10) << "p99 ms"
      << std::setw(11) << "predicted\n";
  out << std::fixed;
  auto rows = r.models;
  rows.insert(rows.begin(), r.total);
  for (const auto& s : rows)
    out << std::left << std::setw(24) << s.model << std::right << std::setprecision(2) << std::setw(9)
        << 100 * s.live_attainment << " %" << std::setw(9) << 100 * s.predicted_attainment << " %"
        << std::setprecision(1) << std::setw(11) << s.live_goodput_rps << std::setw(11) << s.predicted_goodput_rps
        << std::setprecision(2) << std::setw(10) << s.live_p99_ms << std::setw(10) << s.predicted_p99_ms << "\n";
  out << std::defaultfloat;
  out << (r.differences.empty() ? "no difference above 0.1 point, 3 % of batch time or 2 % of shared time\n"
                                : "largest differences (live against predicted):\n");
  for (const auto& d : r.differences)
    out << "  " << d.text << "\n";
  for (const auto& n : r.notes)
    out << "note: " << n << "\n";
}

}  // namespace

void add_predict_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand(
      "predict",
      "Simulate what a recorded live run (live scheduler --record) was offered and compare: attainment, goodput "
      "and p99 per model, and the largest differences with their measured cause");
  struct Args {
    std::string run_file, out;
    std::string decisions = "late";
    bool no_hops = false;
    SimulationArgs sim;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("RUN", args->run_file, "The live run's record (a run file with its timeline)")->required();
  args->sim.add_to(cmd);
  cmd->add_option("--decisions", args->decisions,
                  "How the live scheduler's decisions are simulated, from its record: late (each timer and batch end "
                  "reaches the data plane as late as the record's decisions were, drawn; the default), free (on "
                  "time, as in the papers' simulators), or charged (the mean decision time per event on one "
                  "controller core, queued)")
      ->check(CLI::IsMember({"late", "free", "charged"}));
  cmd->add_flag("--no-hops", args->no_hops,
                "Send the simulated orders, reports and feature maps without the live run's hops (by default no "
                "batch starts sooner after it was dispatched, and no feature map arrives sooner after its link's "
                "time, than the record's did, drawn)");
  cmd->add_option("-o,--out", args->out,
                  "Write the prediction as a run file with its timeline (atomically; - is standard output)");
  cmd->footer(
      "The system comes from the record unless --plan gives the plan it served; its rate, length, warm-up, seed and "
      "latency quantile replace --duration, --warmup, --seed and --latency-quantile.");
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->out});
      const auto body = parse_json_text(read_text_file(args->run_file), args->run_file);
      auto spec = args->sim.to_spec();
      if (args->sim.plan_file.empty()) {
        if (body.contains("pipeline") && !body["pipeline"].is_null())
          throw QueryError(args->run_file + " served a pipeline plan: give it with --plan");
        spec.system = body.value("system", spec.system);
      }
      engine::use_recorded_load(spec, body, args->run_file);
      if (!spec.controller) {
        if (args->decisions == "late") {
          if (auto lateness = engine::recorded_decision_lateness(body, args->run_file))
            engine::draw_decision_lateness(spec, std::move(*lateness));
        } else if (args->decisions == "charged") {
          spec.controller = engine::recorded_decision_cost(body, args->run_file);
        }
      }
      if (!args->no_hops && !spec.hops.any())
        engine::draw_live_hops(spec, engine::recorded_live_hops(body, args->run_file));
      spec.timeline = true;
      const auto scenario = args->sim.load_scenario();
      const auto result = engine::simulate(scenario, spec);
      auto predicted = engine::run_result_to_json(result, scenario.name);
      predicted["timeline"] = engine::to_json(engine::timeline_of(result), engine::TimelineEncoding::Packed);
      predicted["prediction_of"] = args->run_file;
      const auto report = engine::compare_with_prediction(body, predicted, args->run_file, "the prediction");
      if (!args->out.empty()) save_json_file(args->out, predicted);
      if (global.json) {
        auto json = report_json(report);
        json["system"] = result.system;
        json["rate_rps"] = *spec.rate_rps;
        json["duration_s"] = spec.duration.to_s();
        json["seed"] = spec.seed;
        json["decision_us"] = spec.controller ? spec.controller->per_event.to_us() : 0.0;
        for (const auto& [key, hop] :
             {std::pair{"batch_hop_us", &spec.hops.batch}, std::pair{"transfer_overhead_us", &spec.hops.transfer}})
          if (*hop) json[key] = {{"p50", (*hop)->median().to_us()}, {"p99", (*hop)->quantile(0.99).to_us()}};
        if (spec.controller && spec.controller->lateness)
          json["decision_lateness_us"] = {{"p50", spec.controller->lateness->median().to_us()},
                                          {"p99", spec.controller->lateness->quantile(0.99).to_us()}};
        print_json(json);
        return kExitOk;
      }
      report_stream() << "predicted " << args->run_file << ": " << result.system << ", " << std::fixed
                      << std::setprecision(1) << *spec.rate_rps << " req/s for " << spec.duration.to_s() << " s, seed "
                      << spec.seed;
      if (spec.controller && spec.controller->per_event > Duration())
        report_stream() << ", each decision " << spec.controller->per_event.to_us() << " µs on "
                        << spec.controller->cores << " controller core(s)";
      if (spec.controller && spec.controller->lateness)
        report_stream() << ", each decision as late as the live scheduler's (median "
                        << spec.controller->lateness->median().to_us() << " µs, p99 "
                        << spec.controller->lateness->quantile(0.99).to_us() << " µs, drawn)";
      else if (args->decisions == "late")
        report_stream() << ", decisions on time (the record keeps no distribution of them)";
      report_stream() << std::defaultfloat << "\n";
      print_report(report_stream(), report);
      return kExitOk;
    };
  });
}

}  // namespace servescope::cli
