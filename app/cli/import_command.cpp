// `servescope-cli import ppipe|nexus|alphabeta|glet …`: turns published profile formats into a
// ServeScope profiles file (written atomically with --out, else printed). Scenarios then pull
// it in with "profile_includes". `import ppipe-plan` turns one of the PPipe authors' plan files
// into a pipeline plan and the scenario it implies (engine/ppipe/reference_plan_import.h).
#include <iostream>

#include "app/cli/cli_context.h"
#include "app/cli/profiles_output.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "engine/ppipe/reference_plan_import.h"
#include "model/core/error.h"
#include "model/import/alphabeta_import.h"
#include "model/import/glet_import.h"
#include "model/import/nexus_import.h"
#include "model/import/ppipe_import.h"
#include "model/io/document.h"
#include "model/io/file_io.h"

namespace servescope::cli {
namespace {

struct ImportOutput {
  std::string out;
};

int finish(const GlobalOptions& global, const ImportOutput& output, const ProfileSet& set,
           const std::vector<std::string>& warnings) {
  return write_profiles(global, output.out, set, warnings);
}

void add_out_option(CLI::App* cmd, ImportOutput& output) {
  cmd->add_option("-o,--out", output.out, "Profiles file to write (atomically); standard output when absent or -");
}

void add_ppipe(CLI::App& parent, const GlobalOptions& global, CommandBody& run) {
  auto* cmd =
      parent.add_subcommand("ppipe", "Import PPipe block timings and boundary sizes (the artifact's data/ folder)");
  struct Args {
    std::string dir;
    std::vector<std::string> models;
    bool all = false, list = false;
    PpipeImportOptions options;
    ImportOutput output;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("dir", args->dir, "PPipe data/ folder (or the repository that contains it)")->required();
  cmd->add_option("-m,--model", args->models, "Model to import (repeatable)");
  cmd->add_flag("--all", args->all, "Import every model found");
  cmd->add_flag("--list", args->list, "List the models found and exit");
  cmd->add_option("--prepartition", args->options.prepartition,
                  "Boundary-size variant when a model has several (e.g. ilpprepart10-0.5-2.0)");
  cmd->add_option("--slo-multiplier", args->options.slo_multiplier, "SLO = this x mean L4 latency at batch 1")
      ->check(CLI::Range(0.1, 1000.0));
  add_out_option(cmd, args->output);
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->output.out});
      const auto& catalog = GpuCatalog::builtin();
      if (args->list) {
        const auto models = list_ppipe_models(args->dir);
        if (global.json)
          print_json(models);
        else
          for (const auto& m : models)
            report_stream() << m << "\n";
        return kExitOk;
      }
      auto models = args->models;
      if (args->all) models = list_ppipe_models(args->dir);
      if (models.empty()) throw InputError(args->dir, "", "choose models with --model NAME, or --all (see --list)");
      return finish(global, args->output, import_ppipe(args->dir, models, catalog, args->options), {});
    };
  });
}

void add_ppipe_plan(CLI::App& parent, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = parent.add_subcommand(
      "ppipe-plan", "Import one of the PPipe authors' plan files as a pipeline plan and the scenario it implies");
  struct Args {
    std::string dir, file, out, scenario_out;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("dir", args->dir, "PPipe data/ folder (its profiles)")->required();
  cmd->add_option("plan", args->file, "The plan file, e.g. DIR/plans/maf19/…_v4.json")->required();
  cmd->add_option("-o,--out", args->out, "Pipeline plan to write (atomically)")->required();
  cmd->add_option("--scenario-out", args->scenario_out,
                  "Scenario to write: the plan's cluster, the artifact's profiles and a workload at the plan's "
                  "throughput and SLOs")
      ->required();
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->out, args->scenario_out});
      const auto imported = engine::import_reference_plan(args->dir, args->file);
      save_scenario(args->scenario_out, imported.scenario);
      save_json_file(args->out, engine::pipeline_plan_to_json(imported.plan, imported.scenario.name));
      if (global.json) {
        print_json({{"plan", args->out}, {"scenario", args->scenario_out}, {"notes", imported.notes}});
      } else {
        for (const auto& note : imported.notes)
          report_stream() << "note: " << note << "\n";
        report_stream() << "wrote " << args->out << " (" << imported.plan.pipelines.size() << " pipelines for "
                        << imported.plan.models.size() << " models) and " << args->scenario_out << "\n";
      }
      return kExitOk;
    };
  });
}

void add_nexus(CLI::App& parent, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = parent.add_subcommand("nexus", "Import Nexus model-database profiles (.txt)");
  struct Args {
    std::vector<std::string> files;
    ImportOutput output;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("files", args->files, "Nexus profile files")->required();
  add_out_option(cmd, args->output);
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->output.out});
      ProfileSet set;
      set.name = "Nexus profiles";
      set.source = "Nexus model database";
      std::vector<std::string> warnings;
      for (const auto& f : args->files) {
        auto result = import_nexus_profile(f, GpuCatalog::builtin());
        if (set.find(result.profile.name))
          throw InputError(f, "", "model '" + result.profile.name + "' was already imported from another file");
        if (result.monotone_fixes > 0)
          warnings.push_back(f + ": " + std::to_string(result.monotone_fixes) +
                             " forward latencies were below a smaller batch's and were raised");
        set.models.push_back(std::move(result.profile));
      }
      return finish(global, args->output, set, warnings);
    };
  });
}

void add_alphabeta(CLI::App& parent, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = parent.add_subcommand("alphabeta", "Import linear fits latency = alpha*b + beta from a CSV table");
  struct Args {
    std::string file;
    ImportOutput output;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("file", args->file,
                  "CSV with columns model,gpu,alpha_ms|alpha_us,beta_ms|beta_us[,slo_ms|slo_us][,max_batch]")
      ->required();
  add_out_option(cmd, args->output);
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->output.out});
      return finish(global, args->output, import_alphabeta_csv(args->file, GpuCatalog::builtin()), {});
    };
  });
}

void add_glet(CLI::App& parent, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = parent.add_subcommand(
      "glet", "Import gpu-let utilisation (UTIL.CSV), interference coefficients and partition latency tables");
  struct Args {
    std::string util, interference, partitions, gpu;
    ImportOutput output;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--util", args->util, "UTIL.CSV: Nsight utilisation per model and batch");
  cmd->add_option("--interference", args->interference, "INT_MODEL_CONSTANT.CSV: the five coefficients");
  cmd->add_option("--partitions", args->partitions, "inference.csv: latency by model, batch and partition %");
  cmd->add_option("--gpu", args->gpu, "GPU type the measurements were taken on (catalog id or alias)")->required();
  add_out_option(cmd, args->output);
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->output.out});
      if (args->util.empty() && args->interference.empty() && args->partitions.empty())
        throw InputError("", "", "give at least one of --util, --interference, --partitions");
      auto result = import_glet(args->util, args->interference, args->partitions, args->gpu, GpuCatalog::builtin());
      std::vector<std::string> warnings;
      if (result.monotone_fixes > 0)
        warnings.push_back(args->partitions + ": " + std::to_string(result.monotone_fixes) +
                           " latencies were below a smaller batch's and were raised");
      return finish(global, args->output, result.profiles, warnings);
    };
  });
}

}  // namespace

void add_import_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand("import", "Convert published profile formats into a ServeScope profiles file");
  cmd->require_subcommand(1);
  add_ppipe(*cmd, global, run);
  add_ppipe_plan(*cmd, global, run);
  add_nexus(*cmd, global, run);
  add_alphabeta(*cmd, global, run);
  add_glet(*cmd, global, run);
}

}  // namespace servescope::cli
