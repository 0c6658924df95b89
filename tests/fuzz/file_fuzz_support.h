// What the parts of file_fuzz (tests/fuzz/file_fuzz*.cpp) share: the seeds and their families, the
// deterministic randomness and the mutator, the readers with the verdict on each call, and the
// state of the crash handlers and the hang watchdog (the input at hand and when its reading began).
#pragma once

#include <time.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "model/core/error.h"

namespace file_fuzz {

// ---------------------------------------------------------------------------------------------
// Deterministic randomness (splitmix64: the same numbers on every standard library).

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

 private:
  std::uint64_t state_;
};

// ---------------------------------------------------------------------------------------------
// Seeds (file_fuzz_seeds.cpp).

enum class Family { Json, Text };  // JSON files, or the line-based formats (CSV, Nexus, traces)

struct Seed {
  std::string name;
  Family family;
  std::string text;
};

// Every seed: the built-in resources, the corpus, what servescope-cli writes (in `work`) and the
// importers' fixtures.
std::vector<Seed> all_seeds(const std::filesystem::path& work);

// ---------------------------------------------------------------------------------------------
// Mutations (file_fuzz_mutations.cpp).

class Mutator {
 public:
  Mutator(const std::vector<Seed>& seeds, std::uint64_t seed, std::size_t max_wrap_depth)
      : seeds_(seeds), rng_(seed), max_wrap_depth_(max_wrap_depth) {}

  // The next mutant and the index of the seed it came from.
  std::pair<std::string, std::size_t> next();

 private:
  static std::size_t weight(const Seed& seed) { return seed.name.starts_with("corpus:") ? 1 : 3; }

  const Seed& other(Family family);
  void byte_mutation(std::string& s, Family family);
  std::size_t wrap_depth();
  void json_mutation(std::string& s);

  const std::vector<Seed>& seeds_;
  Rng rng_;
  std::size_t max_wrap_depth_;
};

// ---------------------------------------------------------------------------------------------
// Readers, in process, as the CLI and the GUI call them (file_fuzz_readers.cpp).

enum class Verdict { Accepted, Refused, Failed };

struct Failure {
  std::string reader, type, what;
};

template <class F>
Verdict call_reader(F&& read, std::vector<Failure>& failures, const char* reader) {
  try {
    read();
    return Verdict::Accepted;
  } catch (const servescope::InputError& e) {
    if (e.file().empty()) {
      failures.push_back({reader, "InputError without a file", e.what()});
      return Verdict::Failed;
    }
    return Verdict::Refused;
  } catch (const servescope::Error&) {
    return Verdict::Refused;
  } catch (const std::exception& e) {
    failures.push_back({reader, typeid(e).name(), e.what()});
  } catch (...) {
    failures.push_back({reader, "a non-std exception", ""});
  }
  return Verdict::Failed;
}

using ReaderFn = std::function<void(const std::string& path)>;
struct Reader {
  const char* name;
  Family family;
  ReaderFn read;
};

const std::vector<Reader>& readers();

// ---------------------------------------------------------------------------------------------
// Crashes and hangs: the input at hand is saved first (file_fuzz_watchdog.cpp).

extern std::mutex g_current_mutex;
extern const std::string* g_current;            // the mutant being read
extern std::atomic<std::int64_t> g_started_ns;  // when its reading began (0: between inputs)
extern std::array<char, 4096> g_crash_path;     // where a crash saves it

// The reading thread's CPU clock, and its reading when the input at hand began.
extern clockid_t g_reader_clock;
extern std::atomic<std::int64_t> g_started_cpu_ns;

void install_crash_handlers();
std::int64_t now_ns();
std::int64_t cpu_ns(clockid_t clock);

// Aborts the process, the input at hand saved at `hang_path`, when one input's reading takes
// `limit` of CPU time or ten times that of wall time; returns when `done` is set.
void watchdog(std::chrono::seconds limit, const std::filesystem::path& hang_path, const std::atomic<bool>& done);

}  // namespace file_fuzz
