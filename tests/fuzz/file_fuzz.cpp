// A seeded mutation fuzzer over every kind of file ServeScope reads (docs/formats.md
// "Files from elsewhere"): documents (catalog, cluster, profiles, scenario, project, with their
// includes and trace files), pipeline and gpu-let plans, timelines, run and load-sweep files, trace
// files and the CSV importers.
//
// Seeds: every built-in resource, every file of tests/corpus/bad_inputs, and plans, runs,
// timelines and a sweep that servescope-cli writes at start-up, plus the importers' fixtures.
// Mutations: byte flips, insertions, deletions, duplicated ranges, splices of two seeds, and
// JSON-aware ones (hostile numbers such as 1e-300, 1e308, 4e9, 99999999999999999999; values
// wrapped in deep arrays or objects; duplicated keys; a value replaced by one of another type;
// strings naming devices, FIFOs and the file itself).
//
// Each mutant is written to a scratch file and given to every reader of its family, in process.
// A servescope::Error (InputError naming a file, QueryError, ...) is a refusal and fine; any other
// exception is a failure: the mutant is saved under $TMPDIR and the exception printed. A crash is
// left to the sanitizers and ctest, after the mutant is saved; an input whose reading takes more
// than --hang-seconds of CPU time (or ten times that of wall time, blocked) is saved and the
// process aborts (a hang).
//
//   file_fuzz [--seconds N] [--inputs N] [--seed S] [--max-wrap-depth D] [--hang-seconds H]
//   file_fuzz --replay FILE...   (each file through every reader, with each verdict)
//
// Deterministic for a given seed: the same seed gives the same mutants in the same order.
//
// The parts: file_fuzz_seeds.cpp (the seeds), file_fuzz_mutations.cpp (the mutator),
// file_fuzz_readers.cpp (the readers), file_fuzz_watchdog.cpp (crashes and hangs) and this file
// (the options, --replay and the loop), with what they share in file_fuzz_support.h.
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

#include "tests/fuzz/file_fuzz_support.h"

namespace fs = std::filesystem;
using namespace servescope;

namespace file_fuzz {
namespace {

struct ReaderCounts {
  std::uint64_t accepted = 0, refused = 0, failed = 0;
};

// ---------------------------------------------------------------------------------------------

struct Options {
  double seconds = 20;
  std::uint64_t inputs = 0;  // 0: no bound but the time
  std::uint64_t seed = 1;
  std::size_t max_wrap_depth = 1000000;
  int hang_seconds = 20;
  std::vector<std::string> replay;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "file_fuzz: " << why
            << "\nusage: file_fuzz [--seconds N] [--inputs N] [--seed S] [--max-wrap-depth D] [--hang-seconds H]\n"
               "       file_fuzz --replay FILE...\n";
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--seconds")
        o.seconds = std::stod(value());
      else if (a == "--inputs")
        o.inputs = std::stoull(value());
      else if (a == "--seed")
        o.seed = std::stoull(value());
      else if (a == "--max-wrap-depth")
        o.max_wrap_depth = std::stoull(value());
      else if (a == "--hang-seconds")
        o.hang_seconds = std::stoi(value());
      else if (a == "--replay") {
        for (++i; i < argc; ++i)
          o.replay.emplace_back(argv[i]);
      } else
        usage("unknown option " + a);
    } catch (const std::logic_error&) {
      usage("bad value for " + a);
    }
  }
  return o;
}

// Standard input becomes a pipe whose writer stays open and never writes, so a reader that reads
// /dev/stdin blocking hangs here as it would for a user (and the watchdog reports it).
void idle_stdin() {
  static int fds[2] = {-1, -1};
  if (::pipe(fds) == 0) {
    ::dup2(fds[0], 0);
    ::close(fds[0]);
  }
}

int replay(const Options& o) {
  int failures = 0;
  for (const auto& file : o.replay) {
    // Read where it is, so that its relative includes and traces resolve as they did.
    const auto path = file;
    std::cout << file << " ("
              << (fs::is_regular_file(file) ? std::to_string(fs::file_size(file)) + " bytes" : "not a regular file")
              << "):\n";
    for (const auto& r : readers()) {
      std::vector<Failure> f;
      std::string message;
      const auto verdict = call_reader(
          [&] {
            try {
              r.read(path);
            } catch (const Error& e) {
              message = e.what();
              throw;
            }
          },
          f, r.name);
      std::cout << "  " << r.name << ": "
                << (verdict == Verdict::Accepted  ? "accepted"
                    : verdict == Verdict::Refused ? "refused: " + message.substr(0, 300)
                                                  : "FAILED: " + f.front().type + ": " + f.front().what)
                << "\n";
      failures += verdict == Verdict::Failed;
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace file_fuzz

using namespace file_fuzz;

int main(int argc, char** argv) {
  const auto options = parse_options(argc, argv);
  const auto tmp = fs::temp_directory_path();
  const auto work = tmp / ("file_fuzz-" + std::to_string(::getpid()));
  fs::create_directories(work);
  ::mkfifo((work / "fifo").c_str(), 0600);  // what the corpus and the mutants include as "fifo"
  idle_stdin();
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{work};
  if (!options.replay.empty()) return replay(options);

  const auto seeds = all_seeds(work);
  std::size_t json_seeds = 0;
  for (const auto& s : seeds)
    json_seeds += s.family == Family::Json;
  std::cout << "file_fuzz: seed " << options.seed << ", " << options.seconds << " s"
            << (options.inputs ? ", at most " + std::to_string(options.inputs) + " inputs" : std::string()) << ", "
            << seeds.size() << " seed files (" << json_seeds << " JSON, " << seeds.size() - json_seeds
            << " CSV and text)" << std::endl;

  const auto stem = "file_fuzz-seed" + std::to_string(options.seed);
  const auto crash_path = (tmp / (stem + "-crash.input")).string();
  std::snprintf(g_crash_path.data(), g_crash_path.size(), "%s", crash_path.c_str());
  install_crash_handlers();
  std::atomic<bool> done{false};
  ::pthread_getcpuclockid(::pthread_self(), &g_reader_clock);
  std::thread dog(watchdog, std::chrono::seconds(options.hang_seconds), tmp / (stem + "-hang.input"), std::cref(done));

  Mutator mutator(seeds, options.seed, options.max_wrap_depth);
  std::map<std::string, ReaderCounts> counts;
  std::uint64_t inputs = 0, inputs_accepted = 0, inputs_failed = 0, saved = 0;
  std::map<Family, std::uint64_t> by_family;
  const auto mutant_path = (work / "mutant.json").string();
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(options.seconds);
  std::string mutant;
  while (std::chrono::steady_clock::now() < deadline && (options.inputs == 0 || inputs < options.inputs)) {
    auto [text, from] = mutator.next();
    const auto family = seeds[from].family;
    {
      std::lock_guard lock(g_current_mutex);
      mutant = std::move(text);
      g_current = &mutant;
      std::ofstream(mutant_path, std::ios::binary | std::ios::trunc) << mutant;
      g_started_cpu_ns = cpu_ns(g_reader_clock);
      g_started_ns = now_ns();
    }
    ++inputs;
    ++by_family[family];
    std::vector<Failure> failures;
    bool any_accepted = false;
    for (const auto& r : readers()) {
      if (r.family != family) continue;
      const auto verdict = call_reader([&] { r.read(mutant_path); }, failures, r.name);
      auto& c = counts[r.name];
      (verdict == Verdict::Accepted ? c.accepted : verdict == Verdict::Refused ? c.refused : c.failed)++;
      any_accepted |= verdict == Verdict::Accepted;
    }
    {
      std::lock_guard lock(g_current_mutex);
      g_started_ns = 0;
    }
    inputs_accepted += any_accepted;
    if (!failures.empty()) {
      ++inputs_failed;
      const auto saved_at = tmp / (stem + "-failure-" + std::to_string(inputs) + ".input");
      if (saved < 20) {
        std::ofstream(saved_at, std::ios::binary) << mutant;
        ++saved;
      }
      for (const auto& f : failures)
        std::cout << "FAILURE (input " << inputs << ", from " << seeds[from].name << "): " << f.reader << " threw "
                  << f.type << ": " << f.what.substr(0, 500) << "\n  input saved at "
                  << (saved <= 20 ? saved_at.string() : std::string("(not saved: too many)")) << std::endl;
    }
  }
  done = true;
  dog.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::uint64_t accepted = 0, refused = 0, failed = 0;
  for (const auto& [name, c] : counts) {
    accepted += c.accepted;
    refused += c.refused;
    failed += c.failed;
  }
  std::cout << "file_fuzz: inputs " << inputs << " (" << by_family[Family::Json] << " JSON, " << by_family[Family::Text]
            << " CSV and text) in " << wall << " s; inputs some reader accepted " << inputs_accepted
            << ", inputs with a failure " << inputs_failed << "\n"
            << "file_fuzz: reader calls: accepted " << accepted << ", refused " << refused << ", failures " << failed
            << "\n";
  for (const auto& [name, c] : counts)
    std::cout << "  " << name << ": accepted " << c.accepted << ", refused " << c.refused << ", failures " << c.failed
              << "\n";
  std::cout << (failed == 0 ? "file_fuzz: ok" : "file_fuzz: FAILED") << std::endl;
  return failed == 0 ? 0 : 1;
}
