// servescope-cli live scheduler|worker|loadgen: the three processes of a live deployment
// (README "Live deployment"). Each runs until its work is done or SIGINT/SIGTERM, and
// says on stderr what it is doing; --json prints the closing report as JSON on stdout.
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "app/cli/cli_context.h"
#include "app/cli/cuda_commands.h"
#include "app/cli/live_security.h"
#include "app/cli/simulation_args.h"
#include "app/cli/torch_worker.h"
#include "engine/analysis/decision_record.h"
#include "engine/glet/glet_plan_json.h"
#include "engine/live/live_scheduler.h"
#include "engine/live/live_worker.h"
#include "engine/live/load_generator.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "engine/serving/run_result_json.h"
#include "engine/timeline/timeline_data.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "model/io/file_io.h"
#include "model/workload/workload.h"

namespace servescope::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_signal(int) {
  g_stop.store(true);
}

void install_signal_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
}

struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
};

Endpoint parse_endpoint(const std::string& text, const char* option) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw QueryError(std::string(option) + " takes HOST:PORT (got '" + text + "')");
  char* end = nullptr;
  const auto port = std::strtol(text.c_str() + colon + 1, &end, 10);
  if (end == text.c_str() + colon + 1 || *end != '\0' || port < 0 || port > 65535)
    throw QueryError(std::string(option) + ": '" + text.substr(colon + 1) + "' is not a port number");
  return {text.substr(0, colon), static_cast<std::uint16_t>(port)};
}

void log_line(const std::string& who, const std::string& line) {
  std::cerr << who << ": " << line << std::endl;
}

void add_scheduler(CLI::App* live, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = live->add_subcommand("scheduler", "Serve a scenario's plan: dispatch batches to workers in real time");
  struct Args {
    SimulationArgs sim;
    std::string listen = "127.0.0.1:7070", record, port_file, metrics_host = "127.0.0.1";
    SecurityArgs security;
    int metrics_port = -1;
    double stop_after_s = 0;
    std::size_t subscriber_limit_mib = 8;
    std::size_t max_connections = 1024;
    double commands_per_s = 20;
    double plan_switch_interval_s = 2;
  };
  auto args = std::make_shared<Args>();
  args->sim.add_to(cmd);
  cmd->add_option("--listen", args->listen, "Where workers, load generators and GUIs connect (HOST:PORT; port 0: any)")
      ->capture_default_str();
  add_security_options(cmd, args->security);
  cmd->add_option("--metrics-port", args->metrics_port,
                  "Serve Prometheus metrics at http://METRICS-HOST:PORT/metrics (0: any free port)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--metrics-host", args->metrics_host,
                  "The address the metrics endpoint binds (plain HTTP, read-only; 0.0.0.0 for a remote Prometheus)")
      ->capture_default_str();
  cmd->add_option("--record", args->record, "At exit, write the run (with its timeline) as a run file");
  cmd->add_option("--port-file", args->port_file, "Write the port it listens on to this file once listening");
  cmd->add_option("--stop-after", args->stop_after_s, "Stop after this many seconds (0: at SIGINT or SIGTERM)")
      ->check(CLI::Range(0.0, 1e7));
  cmd->add_option("--max-connections", args->max_connections,
                  "Open connections it keeps (workers, load generators, GUIs, strangers); more are closed at once")
      ->check(CLI::Range(16, 1'000'000))
      ->capture_default_str();
  cmd->add_option("--command-rate", args->commands_per_s,
                  "Control commands one peer may send per second (twice as many at once); more are ignored")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--plan-switch-interval", args->plan_switch_interval_s,
                  "Seconds at least between the starts of two plan switches; a GUI asking sooner is told when to retry")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  cmd->add_option("--subscriber-limit", args->subscriber_limit_mib,
                  "MiB of unread events after which a slow subscriber is dropped")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->record, args->port_file});
      install_signal_handlers();
      // What only a simulation models: a live scheduler's decisions, messages and controller are
      // its own, and it records them (docs/formats.md, "scheduler").
      for (const auto& [given, name] : {std::pair{!args->sim.decision_lateness_file.empty(), "--decision-lateness"},
                                        std::pair{!args->sim.hops_file.empty(), "--hops"},
                                        std::pair{args->sim.controller_cores > 0, "--controller-cores"}})
        if (given)
          throw QueryError(std::string(name) +
                           " is the simulator's: a live scheduler's decisions and messages take what they take, "
                           "and --record keeps them");
      engine::live::SchedulerOptions options;
      options.token = resolve_token(args->security);
      const auto scenario = args->sim.load_scenario();
      auto spec = args->sim.to_spec();
      const auto at = parse_endpoint(args->listen, "--listen");
      options.host = at.host;
      options.port = at.port;
      options.tls = resolve_tls(args->security, "the scheduler", at.host, true);
      options.insecure = args->security.insecure;
      if (args->metrics_port >= 0) options.metrics_port = static_cast<std::uint16_t>(args->metrics_port);
      options.metrics_host = args->metrics_host;
      options.keep_events = !args->record.empty();
      options.subscriber_limit_bytes = args->subscriber_limit_mib << 20;
      options.max_connections = args->max_connections;
      options.commands_per_second = args->commands_per_s;
      options.command_burst = 2 * args->commands_per_s;
      options.plan_switch_interval =
          std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(args->plan_switch_interval_s * 1000)));
      engine::live::LiveScheduler scheduler(engine::prepare_serving(scenario, spec), options, scenario.name);
      scheduler.set_log([](const std::string& line) { log_line("scheduler", line); });
      // A GUI's "apply plan": the same scenario and options, another system or plan.
      scheduler.set_plan_preparer([&scenario, spec](const nlohmann::json& command) {
        auto next = spec;
        const auto system =
            command.contains("system") ? std::optional(command["system"].get<std::string>()) : std::nullopt;
        if (command.contains("plan")) {
          engine::use_plan(next, command["plan"], "the applied plan", system);
        } else {
          if (!system) throw QueryError("apply-plan needs a plan or a system");
          next.system = *system;
          if (engine::data_plane_traits(next.system).runs != engine::PlanKind::None)
            throw QueryError(next.system + " needs a plan");
        }
        return engine::prepare_serving(scenario, next);
      });
      std::string listening = "serving " + spec.system + " on " + at.host + ":" + std::to_string(scheduler.port());
      listening += options.tls ? " (TLS)" : " (plain TCP)";
      if (scheduler.metrics_port())
        listening += ", metrics at http://" + options.metrics_host + ":" + std::to_string(*scheduler.metrics_port()) +
                     "/metrics";
      log_line("scheduler", listening);
      const auto missing = scheduler.missing_servers();
      if (!missing.empty()) {
        std::string names;
        for (const auto& m : missing)
          names += " " + m;
        log_line("scheduler", "waiting for workers:" + names);
      }
      if (!args->port_file.empty()) {
        write_output_file(args->port_file,
                          std::to_string(scheduler.port()) + '\n' +
                              std::to_string(scheduler.metrics_port() ? *scheduler.metrics_port() : 0) + '\n');
      }
      // --stop-after: a timer thread that sets the stop flag; stopped and joined however run() ends.
      struct StopTimer {
        std::thread thread;
        ~StopTimer() {
          g_stop.store(true);
          if (thread.joinable()) thread.join();
        }
      } timer;
      if (args->stop_after_s > 0)
        timer.thread = std::thread([s = args->stop_after_s] {
          const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
          while (!g_stop.load() && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          g_stop.store(true);
        });
      scheduler.run(g_stop);
      const auto& c = scheduler.counters();
      const nlohmann::json loop = {{engine::kDecisions, engine::histogram_record_json(c.dispatch_overhead)},
                                   {engine::kBatchHops, engine::histogram_record_json(c.batch_hop)},
                                   {engine::kTransferOverheads, engine::histogram_record_json(c.transfer_overhead)}};
      nlohmann::json report = {{"requests", c.requests()},
                               {"finished", c.finished()},
                               {"outstanding", scheduler.outstanding()},
                               {"workers_lost", c.workers_lost},
                               {"workers_joined", c.workers_joined},
                               {"workers_doubted", c.workers_doubted},
                               {"requests_sent_to_gone_workers", c.sent_to_gone_workers},
                               {"requests_reserved_on_lost_workers", c.reserved_on_lost_workers},
                               {"subscribers_dropped", c.subscribers_dropped},
                               {"connections_refused", c.connections_refused},
                               {"plan_switches", scheduler.plan_switches()},
                               {"plan_switches_limited", c.plan_switches_limited},
                               {"commands_limited", c.commands_limited},
                               {engine::kDecisions, loop[engine::kDecisions]},
                               {engine::kBatchHops, loop[engine::kBatchHops]},
                               {engine::kTransferOverheads, loop[engine::kTransferOverheads]}};
      if (!args->record.empty()) {
        report["recording"] = {{"complete", scheduler.recording_failure().empty()},
                               {"failure", scheduler.recording_failure()}};
        auto write = [&](const engine::SimulationResult& result, const std::string& path) {
          auto json = engine::run_result_to_json(result, scenario.name);
          json["scenario_file"] = args->sim.scenario_location();
          json["timeline"] = engine::to_json(engine::timeline_of(result));
          // How late its decisions and messages were, for `predict` to draw (docs/formats.md).
          json["scheduler"] = loop;
          save_json_file(path, json);
          log_line("scheduler", "recorded the run in " + path);
        };
        // Under each earlier plan, its own file: RECORD with ".planN" before the extension.
        const auto before = scheduler.recorded_before_switches();
        const std::filesystem::path record(args->record);
        for (std::size_t i = 0; i < before.size(); ++i)
          write(before[i], (record.parent_path() /
                            (record.stem().string() + ".plan" + std::to_string(i + 1) + record.extension().string()))
                               .string());
        write(scheduler.recorded(), args->record);
      }
      if (global.json)
        print_json(report);
      else
        report_stream() << report.dump(2) << '\n';
      return kExitOk;
    };
  });
}

void add_worker(CLI::App* live, CommandBody& run) {
  auto* cmd = live->add_subcommand("worker", "Run one server's vGPUs for a scheduler");
  struct Args {
    std::string connect = "127.0.0.1:7070", node, executor = "emulated", feature_host;
    SecurityArgs security;
    double noise = 0;
    std::uint64_t seed = 1;
    TorchWorkerArgs torch;
    CudaWorkerArgs cuda;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--connect", args->connect, "The scheduler (HOST:PORT)")->capture_default_str();
  cmd->add_option("--node", args->node, "Which server of the scenario's cluster this worker is")->required();
  add_security_options(cmd, args->security);
  cmd->add_option("--executor", args->executor,
                  "emulated (holds each batch for its profiled time), torch (runs the model folders' blocks on real "
                  "tensors with LibTorch) or cuda (runs each batch as calibrated GPU work, one MPS client per slot)")
      ->check(CLI::IsMember({"emulated", "torch", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--models", args->torch.models,
                  "With --executor torch: the model folders it serves (scripts/export_model.py), named as the "
                  "scenario's models");
  cmd->add_option("--device", args->torch.device, "With --executor torch: cpu, or cuda where LibTorch has it")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--check-every", args->torch.check_every,
                  "With --executor torch: check one request in N (by id) against the whole model; 0: none")
      ->capture_default_str();
  cmd->add_option("--gpu", args->cuda.gpu, "With --executor cuda: which GPU (see gpu list)")
      ->check(CLI::Range(0, 63))
      ->capture_default_str();
  cmd->add_option("--profiles", args->cuda.profiles,
                  "With --executor cuda: the scenario (or profiles file) whose cut sizes the feature maps take; "
                  "without it maps are a pattern of the profiled size, sent from the host");
  cmd->add_option("--compute-fraction", args->cuda.compute_fraction,
                  "With --executor cuda: the share of each batch's time that runs as GEMMs (the rest streams memory)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_flag("--no-mps", args->cuda.no_mps,
                "With --executor cuda: do not start the MPS control daemon; without it the slots time-share the GPU");
  cmd->add_option("--feature-host", args->feature_host,
                  "Address other workers send feature maps to (default: the one it reaches the scheduler from)");
  cmd->add_option("--noise", args->noise, "Emulated run times vary by ± this fraction")->check(CLI::Range(0.0, 0.99));
  cmd->add_option("--seed", args->seed, "Seed of the emulated noise")->capture_default_str();
  cmd->callback([&run, args] {
    run = [args] {
      install_signal_handlers();
      engine::live::WorkerOptions options;
      options.token = resolve_token(args->security);
      const auto at = parse_endpoint(args->connect, "--connect");
      options.host = at.host;
      options.port = at.port;
      options.node = args->node;
      options.feature_host = args->feature_host;
      options.tls = resolve_tls(args->security, "worker " + args->node, at.host, false);
      options.insecure = args->security.insecure;
      const auto who = "worker " + args->node;
      const auto log = [who](const std::string& line) { log_line(who, line); };
      ExecutorSetup made;
      if (args->executor == "torch") made = make_torch_worker(args->torch, log);
      if (args->executor == "cuda") made = make_cuda_worker(args->cuda, log);
      engine::live::LiveWorker worker(
          options, made.executor ? std::move(made.executor)
                                 : std::make_unique<engine::live::EmulatedExecutor>(args->noise, args->seed));
      worker.set_log(log);
      // An executor that cannot go on (a wrong output) ends the worker with the reason, exit 1.
      const auto summarise = [&] {
        const auto& s = worker.stats();
        log_line(who, "ran " + std::to_string(s.batches) + " batches, sent " + std::to_string(s.feature_maps_sent) +
                          " feature maps (" + std::to_string(s.feature_bytes_sent) + " bytes), received " +
                          std::to_string(s.feature_maps_received));
        if (made.summary) log_line(who, made.summary());
      };
      try {
        worker.run(g_stop);
      } catch (const engine::live::ExecutorFailure&) {
        summarise();
        throw;
      }
      summarise();
      return kExitOk;
    };
  });
}

void add_loadgen(CLI::App* live, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = live->add_subcommand("loadgen", "Send requests to a scheduler and report how each ended");
  struct Args {
    std::string connect = "127.0.0.1:7070", arrival = "poisson", output;
    SecurityArgs security;
    double rate = 100, duration_s = 10, ready_timeout_s = 10, drain_timeout_s = 0;
    std::uint64_t seed = 1;
    std::vector<std::string> models;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--connect", args->connect, "The scheduler (HOST:PORT)")->capture_default_str();
  add_security_options(cmd, args->security);
  cmd->add_option("--rate", args->rate, "Requests per second")
      ->check(CLI::Range(1e-3, kMaxRateRps))
      ->capture_default_str();
  cmd->add_option("--arrival", args->arrival, "poisson, gamma:SHAPE or trace:FILE")->capture_default_str();
  cmd->add_option("--duration", args->duration_s, "Seconds of sending")
      ->check(CLI::Range(1e-3, 1e7))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the arrival process")->capture_default_str();
  cmd->add_option("--model", args->models, "Send only to this model (repeatable; default: the scenario's mix)");
  cmd->add_option("--output", args->output, "Write one CSV row per request (id, model, sent, outcome, latency)");
  cmd->add_option("--ready-timeout", args->ready_timeout_s, "Seconds to wait for the scheduler and the plan's workers")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--drain-timeout", args->drain_timeout_s,
                  "Seconds to wait for the last outcomes (0: 4 × the largest SLO + 2 s)")
      ->check(CLI::Range(0.0, 86400.0));
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->output});
      install_signal_handlers();
      engine::live::LoadOptions options;
      options.token = resolve_token(args->security);
      const auto at = parse_endpoint(args->connect, "--connect");
      options.host = at.host;
      options.port = at.port;
      options.tls = resolve_tls(args->security, "the load generator", at.host, false);
      options.rate_rps = args->rate;
      options.arrival = engine::live::parse_arrival(args->arrival, options.trace);
      options.duration = Duration::from_s(args->duration_s);
      options.seed = args->seed;
      options.models = args->models;
      options.ready_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(args->ready_timeout_s * 1000));
      options.drain_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(args->drain_timeout_s * 1000));
      std::optional<OutputFile> csv;
      if (!args->output.empty()) {
        options.per_request = &csv.emplace(args->output).stream();
        *options.per_request << "id,model,sent_us,outcome,reason,latency_us\n";
      }
      const auto report =
          engine::live::run_load(options, g_stop, [](const std::string& line) { log_line("loadgen", line); });
      if (csv) csv->commit();
      if (global.json) {
        print_json(report.to_json());
      } else {
        report_stream() << "sent " << report.sent << " in " << report.duration_s << " s: " << report.on_time
                        << " on time, " << report.late << " late, " << report.dropped << " dropped, "
                        << report.scheduler_lost << " lost with the scheduler, " << report.no_outcome
                        << " without an outcome\n"
                        << "SLO attainment " << 100 * report.attainment() << " %, goodput " << report.goodput_rps()
                        << " req/s, latency p50 " << report.latency.quantile(0.5).to_ms() << " ms, p99 "
                        << report.latency.quantile(0.99).to_ms() << " ms\n";
      }
      if (!report.reconciled()) {
        std::cerr << "error: " << report.no_outcome << " requests got no outcome within the drain timeout\n";
        return kExitFailure;
      }
      if (report.lost() > 0) {
        std::cerr << "error: " << report.lost() << " requests were lost ("
                  << report.dropped_by_reason[static_cast<std::size_t>(engine::DropReason::WorkerLost)]
                  << " dropped as worker-lost, " << report.scheduler_lost << " outstanding when the scheduler went)\n";
        return kExitRequestsLost;
      }
      return kExitOk;
    };
  });
}

}  // namespace

// One vGPU slot of a worker on a GPU, started by the worker itself (engine/gpuexec/slot_process.h):
// it speaks the slot protocol on stdin and stdout, so it is not for a terminal and not in --help.
void add_slot(CLI::App* live, CommandBody& run) {
  auto* cmd = live->add_subcommand("slot", "One vGPU slot of `live worker --executor cuda` (started by the worker)");
  cmd->group("");
  struct Args {
    int gpu = 0, gemm_size = 1024;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--gpu", args->gpu, "Which GPU")->check(CLI::Range(0, 63));
  cmd->add_option("--gemm-size", args->gemm_size, "The GEMMs' size")->check(CLI::Range(64, 8192));
  cmd->callback([&run, args] { run = [args] { return run_cuda_slot(args->gpu, args->gemm_size); }; });
}

void add_live_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* live = app.add_subcommand("live", "Run a live deployment: scheduler, workers and load generator");
  live->require_subcommand(1);
  add_scheduler(live, global, run);
  add_worker(live, run);
  add_loadgen(live, global, run);
  add_gen_certs(live, run);
  add_slot(live, run);
}

}  // namespace servescope::cli
