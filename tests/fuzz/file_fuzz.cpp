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
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <typeinfo>
#include <vector>

#include "engine/analysis/run_csv.h"
#include "engine/analysis/run_series.h"
#include "engine/analysis/saved_artifacts.h"
#include "engine/glet/glet_plan_json.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "engine/systems/scenario_planner.h"
#include "engine/timeline/chrome_trace.h"
#include "engine/timeline/timeline_data.h"
#include "model/core/error.h"
#include "model/gpu/gpu_catalog.h"
#include "model/import/alphabeta_import.h"
#include "model/import/glet_import.h"
#include "model/import/nexus_import.h"
#include "model/io/document.h"
#include "model/io/file_io.h"
#include "model/io/json_cursor.h"
#include "model/io/model_json.h"
#include "model/io/trace_file.h"
#include "resources/builtin_resources.h"
#include "tests/model/csv_fixtures.h"
#include "tests/support/glet_fixture.h"
#include "tests/support/pipeline_fixture.h"

namespace fs = std::filesystem;
using namespace servescope;

namespace {

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
// Seeds.

enum class Family { Json, Text };  // JSON files, or the line-based formats (CSV, Nexus, traces)

struct Seed {
  std::string name;
  Family family;
  std::string text;
};

std::string read_whole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Wall-clock figures differ from run to run; zeroed, the seeds (and so the mutants) are the same.
void scrub(nlohmann::json& j) {
  if (j.is_object()) {
    for (auto& [key, value] : j.items()) {
      if (key.find("wall") != std::string::npos || key == "seconds" || key == "created_utc")
        value = value.is_string() ? nlohmann::json("") : nlohmann::json(0);
      else
        scrub(value);
    }
  } else if (j.is_array()) {
    for (auto& v : j)
      scrub(v);
  }
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Plans, runs, timelines and a sweep as servescope-cli writes them (in `dir`); a command that
// fails is reported and its seeds left out.
std::vector<Seed> generated_seeds(const fs::path& dir) {
  const std::string cli = shell_quote(SERVESCOPE_CLI);
  auto path = [&](const std::string& name) { return shell_quote((dir / name).string()); };
  {
    std::ofstream(dir / "glet-scenario.json") << test::glet_scenario_json(1200);
    std::ofstream(dir / "pipeline-scenario.json") << test::kPipelineScenarioJson;
  }
  const std::string ppipe = "builtin:projects/ppipe-demo.json";
  const std::vector<std::string> commands = {
      "plan -s " + ppipe + " -o " + path("ppipe-plan.json"),
      "plan -s " + ppipe + " --system dart-r -o " + path("dart-plan.json"),
      "simulate -s " + ppipe + " --plan " + path("ppipe-plan.json") + " -d 0.01 --warmup 0 -o " +
          path("pipeline-run.json") + " --timeline " + path("pipeline-timeline.json"),
      "simulate -s builtin:projects/demo.json -w mixed-37 --rate 2000 -d 0.02 --warmup 0 -o " +
          path("symphony-run.json") + " --timeline " + path("symphony-timeline.json"),
      "plan -s " + path("glet-scenario.json") + " --system glet -o " + path("glet-plan.json"),
      "simulate -s " + path("glet-scenario.json") + " --plan " + path("glet-plan.json") + " -d 0.05 --warmup 0 -o " +
          path("glet-run.json") + " --timeline " + path("glet-timeline.json"),
      "sweep -s " + ppipe + " --plan " + path("ppipe-plan.json") + " -d 0.05 --from 0.5 --to 1 --step 0.5 -o " +
          path("sweep.json"),
      "plan -s builtin:projects/cost-demo.json --system harpagon --no-verify -o " + path("cost-plan.json"),
  };
  for (const auto& c : commands) {
    const auto line = cli + " " + c + " >/dev/null 2>&1 </dev/null";
    if (std::system(line.c_str()) != 0) std::cerr << "file_fuzz: warning: seed command failed: " << c << "\n";
  }
  std::vector<Seed> seeds;
  auto add = [&](const std::string& name, const nlohmann::json& j) {
    seeds.push_back({name, Family::Json, j.dump(1)});
  };
  std::map<std::string, nlohmann::json> made;
  for (const auto* name : {"ppipe-plan.json", "dart-plan.json", "pipeline-run.json", "pipeline-timeline.json",
                           "symphony-run.json", "symphony-timeline.json", "glet-plan.json", "glet-run.json",
                           "glet-timeline.json", "sweep.json", "cost-plan.json"}) {
    if (!fs::exists(dir / name)) continue;
    auto j = nlohmann::json::parse(read_whole(dir / name), nullptr, false);
    if (j.is_discarded()) continue;
    scrub(j);
    made[name] = j;
    add(std::string("generated:") + name, j);
  }
  seeds.push_back({"generated:glet-scenario.json", Family::Json, test::glet_scenario_json(1200)});
  seeds.push_back({"generated:pipeline-scenario.json", Family::Json, test::kPipelineScenarioJson});
  // A project holding plans and runs, as the GUI saves it.
  if (auto demo = resources::find_builtin_resource("projects/ppipe-demo.json")) {
    auto project = nlohmann::json::parse(*demo);
    project["plans"] = nlohmann::json::array();
    project["runs"] = nlohmann::json::array();
    for (const auto* name : {"ppipe-plan.json", "glet-plan.json", "cost-plan.json"})
      if (made.contains(name))
        project["plans"].push_back({{"name", name}, {"system", "x"}, {"created_utc", ""}, {"body", made[name]}});
    for (const auto* name : {"pipeline-run.json", "glet-run.json"})
      if (made.contains(name))
        project["runs"].push_back({{"name", name}, {"system", "x"}, {"created_utc", ""}, {"body", made[name]}});
    add("generated:project-with-artifacts.json", project);
  }
  return seeds;
}

std::vector<Seed> all_seeds(const fs::path& work) {
  std::vector<Seed> seeds;
  for (const auto& r : resources::all_builtin_resources())
    seeds.push_back({"builtin:" + std::string(r.name), Family::Json, std::string(r.contents)});
  std::vector<fs::path> corpus;
  for (const auto& e : fs::directory_iterator(SERVESCOPE_CORPUS_DIR))
    if (e.is_regular_file() && e.path().extension() != ".md") corpus.push_back(e.path());
  std::ranges::sort(corpus);
  for (const auto& p : corpus)
    seeds.push_back({"corpus:" + p.filename().string(), Family::Json, read_whole(p)});
  for (auto& s : generated_seeds(work))
    seeds.push_back(std::move(s));
  const std::vector<std::pair<const char*, const char*>> texts = {
      {"alphabeta.csv", test::kAlphaBeta},
      {"nexus.txt", test::kNexusProfile},
      {"glet-util.csv", test::kGletUtil},
      {"glet-interference.csv", test::kGletInterference},
      {"partition-latency.csv", test::kPartitionLatency},
      {"trace.txt", "# seconds\n0.0\n0.001\n0.0015\n\n0.004\n1.25\n"},
  };
  for (const auto& [name, text] : texts)
    seeds.push_back({std::string("fixture:") + name, Family::Text, text});
  return seeds;
}

// ---------------------------------------------------------------------------------------------
// Mutations.

const std::vector<std::string> kHostileNumbers = {"1e-300",
                                                  "1e308",
                                                  "-1",
                                                  "4e9",
                                                  "1e30",
                                                  "99999999999999999999",
                                                  "0",
                                                  "-0",
                                                  "1e400",
                                                  "-1e400",
                                                  "18446744073709551615",
                                                  "18446744073709551616",
                                                  "9223372036854775807",
                                                  "9223372036854775808",
                                                  "-9223372036854775809",
                                                  "2147483648",
                                                  "4294967296",
                                                  "0.5",
                                                  "1e-7",
                                                  "4.9e-324",
                                                  "1.7976931348623157e308",
                                                  "-1e308",
                                                  "1e-320",
                                                  "3",
                                                  "65",
                                                  "4096",
                                                  "1000000",
                                                  "123456789012",
                                                  "NaN",
                                                  "Infinity",
                                                  "0x10",
                                                  "1.5e+9"};
const std::vector<std::string> kHostileStrings = {R"("")",
                                                  R"("builtin:nope.json")",
                                                  R"("builtin:projects/demo.json")",
                                                  R"("/dev/zero")",
                                                  R"("/dev/null")",
                                                  R"("/dev/stdin")",
                                                  R"("fifo")",
                                                  R"("mutant.json")",
                                                  R"("./mutant.json")",
                                                  R"("..")",
                                                  R"("/")",
                                                  R"("\u0000")",
                                                  R"("\ud800")",
                                                  R"("1/0")",
                                                  R"("0%")",
                                                  R"("100000%")",
                                                  R"("1/4096")",
                                                  R"("piecewise")",
                                                  R"("trace")",
                                                  R"("gamma")",
                                                  R"("zipf")",
                                                  R"("explicit")",
                                                  R"("project")",
                                                  R"("scenario")",
                                                  R"("profiles")",
                                                  R"("pipeline-plan")",
                                                  R"("glet-plan")",
                                                  R"("timeline")",
                                                  R"("run-result")",
                                                  R"("load-sweep")",
                                                  R"("blocks")",
                                                  R"("table")",
                                                  R"("linear")",
                                                  R"("V100")",
                                                  R"("A100")",
                                                  R"("P4")",
                                                  R"("cpu")",
                                                  R"("dnn")"};
const std::vector<std::string> kOtherTypes = {
    "[]", "{}", "null", "true", "false", R"("x")", "[1]", R"({"a": 1})", "[[]]", "[null]", R"(["a", "b"])", "-1", "0"};
const std::vector<std::string> kHostileCells = {
    "-5",  "nan", "inf",    "1e999", "abc", "",   "\xff", "99999999999999999999", "0", "1e-300",
    "4e9", "\"",  "\"\"\"", ",,,,",  "\r",  "-0", "1e308"};

enum class TokenType { Number, String, Key, Literal };
struct Token {
  TokenType type;
  std::size_t start, length;
};

// The scalar tokens of a JSON text (of a broken one too: the scan just goes on).
std::vector<Token> scan_json(const std::string& s) {
  std::vector<Token> tokens;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '"') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != '"')
        j += s[j] == '\\' ? std::size_t{2} : std::size_t{1};
      j = std::min(j + 1, s.size());
      std::size_t k = j;
      while (k < s.size() && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r'))
        ++k;
      tokens.push_back({k < s.size() && s[k] == ':' ? TokenType::Key : TokenType::String, i, j - i});
      i = j;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i + 1;
      while (j < s.size() && std::strchr("0123456789.eE+-", s[j]) != nullptr)
        ++j;
      tokens.push_back({TokenType::Number, i, j - i});
      i = j;
    } else if (s.compare(i, 4, "true") == 0 || s.compare(i, 4, "null") == 0) {
      tokens.push_back({TokenType::Literal, i, 4});
      i += 4;
    } else if (s.compare(i, 5, "false") == 0) {
      tokens.push_back({TokenType::Literal, i, 5});
      i += 5;
    } else {
      ++i;
    }
  }
  return tokens;
}

constexpr std::size_t kMaxMutantBytes = 8u << 20;

class Mutator {
 public:
  Mutator(const std::vector<Seed>& seeds, std::uint64_t seed, std::size_t max_wrap_depth)
      : seeds_(seeds), rng_(seed), max_wrap_depth_(max_wrap_depth) {}

  // The next mutant and the index of the seed it came from.
  std::pair<std::string, std::size_t> next() {
    // The corpus's files are refused as they are; the other seeds, mostly valid, are picked three
    // times as often, so that most mutants are a step or two from a file the readers accept.
    std::size_t total = 0;
    for (const auto& seed : seeds_)
      total += weight(seed);
    auto pick = rng_.below(total);
    std::size_t index = 0;
    while (pick >= weight(seeds_[index]))
      pick -= weight(seeds_[index++]);
    std::string text = seeds_[index].text;
    // Mostly one or two changes, so that most of the file still makes sense; now and then many.
    const auto roll = rng_.below(100);
    const std::size_t rounds = roll < 55 ? 1 : roll < 85 ? 2 : 3 + rng_.below(6);
    for (std::size_t r = 0; r < rounds; ++r) {
      if (seeds_[index].family == Family::Json && rng_.chance(60))
        json_mutation(text);
      else
        byte_mutation(text, seeds_[index].family);
    }
    return {std::move(text), index};
  }

 private:
  static std::size_t weight(const Seed& seed) { return seed.name.starts_with("corpus:") ? 1 : 3; }

  const Seed& other(Family family) {
    for (;;) {
      const auto& s = rng_.pick(seeds_);
      if (s.family == family) return s;
    }
  }

  void byte_mutation(std::string& s, Family family) {
    static const std::string kSpecial = "\"[]{},:\\\n\r\t -+.eE0123456789#/%";
    const auto pos = [&] { return rng_.below(s.size() + 1); };
    switch (rng_.below(10)) {
      case 0:  // flip a bit
        if (!s.empty()) s[rng_.below(s.size())] ^= static_cast<char>(1u << rng_.below(8));
        break;
      case 1:  // an interesting byte
        if (!s.empty()) s[rng_.below(s.size())] = kSpecial[rng_.below(kSpecial.size())];
        break;
      case 2: {  // insert bytes
        std::string bytes;
        for (std::size_t n = 1 + rng_.below(8); n > 0; --n)
          bytes += rng_.chance(70) ? kSpecial[rng_.below(kSpecial.size())] : static_cast<char>(rng_.below(256));
        s.insert(pos(), bytes);
        break;
      }
      case 3: {  // delete a range
        if (s.empty()) break;
        const auto at = rng_.below(s.size());
        s.erase(at, 1 + rng_.below(std::min<std::size_t>(64, s.size() - at)));
        break;
      }
      case 4: {  // duplicate a range elsewhere
        if (s.empty() || s.size() > kMaxMutantBytes / 2) break;
        const auto at = rng_.below(s.size());
        const auto range = s.substr(at, 1 + rng_.below(std::min<std::size_t>(256, s.size() - at)));
        s.insert(pos(), range);
        break;
      }
      case 5: {  // splice: this seed's head, another's tail
        const auto& o = other(family).text;
        s = s.substr(0, pos()) + o.substr(rng_.below(o.size() + 1));
        break;
      }
      case 6: {  // a piece of another seed inserted
        const auto& o = other(family).text;
        const auto at = rng_.below(o.size() + 1);
        s.insert(pos(), o.substr(at, rng_.below(512)));
        break;
      }
      case 7:  // truncate
        s.resize(rng_.below(s.size() + 1));
        break;
      case 8: {  // a hostile cell (CSV) or number
        const auto& cell = rng_.pick(family == Family::Text ? kHostileCells : kHostileNumbers);
        if (s.empty()) {
          s = cell;
          break;
        }
        const auto at = rng_.below(s.size());
        auto start = s.find_last_of(",\n", at);
        start = start == std::string::npos ? 0 : start + 1;
        auto end = s.find_first_of(",\n", at);
        if (end == std::string::npos) end = s.size();
        s.replace(start, end > start ? end - start : 0, cell);
        break;
      }
      default: {  // repeat a line many times (long files, many rows)
        if (s.size() > kMaxMutantBytes / 64) break;
        const auto at = rng_.below(s.size() + 1);
        const auto start = s.rfind('\n', at == 0 ? 0 : at - 1);
        const auto from = start == std::string::npos ? 0 : start + 1;
        const auto end = s.find('\n', from);
        const auto line = s.substr(from, end == std::string::npos ? std::string::npos : end - from + 1);
        std::string many;
        for (std::size_t n = rng_.below(2000); n > 0; --n)
          many += line;
        s.insert(from, many);
        break;
      }
    }
    if (s.size() > kMaxMutantBytes) s.resize(kMaxMutantBytes);
  }

  std::size_t wrap_depth() {
    static const std::vector<std::size_t> kDepths = {2, 8, 63, 64, 65, 100, 1000, 10000, 100000, 1000000};
    for (;;) {
      const auto d = kDepths[rng_.chance(85) ? rng_.below(6) : 6 + rng_.below(kDepths.size() - 6)];
      if (d <= max_wrap_depth_) return d;
      if (max_wrap_depth_ < 2) return 1;
    }
  }

  void json_mutation(std::string& s) {
    const auto tokens = scan_json(s);
    if (tokens.empty()) return byte_mutation(s, Family::Json);
    std::vector<const Token*> values, numbers, strings, keys;
    for (const auto& t : tokens) {
      if (t.type == TokenType::Key)
        keys.push_back(&t);
      else
        values.push_back(&t);
      if (t.type == TokenType::Number) numbers.push_back(&t);
      if (t.type == TokenType::String) strings.push_back(&t);
    }
    auto replace = [&](const Token& t, const std::string& with) { s.replace(t.start, t.length, with); };
    switch (rng_.below(11)) {
      case 9:
      case 10: {  // a number nudged: still plausible, so the reader's checks beyond the types run
        if (numbers.empty()) break;
        const auto& t = *rng_.pick(numbers);
        const auto text = s.substr(t.start, t.length);
        const bool integer = text.find_first_of(".eE") == std::string::npos;
        static const std::vector<std::string> kInteger = {"+1", "-1", "*2", "/2", "=0", "=1", "*1000"};
        static const std::vector<std::string> kReal = {"*0.5", "*2", "*10", "*0.1", "*-1", "*1.0000001"};
        const auto& op = rng_.pick(integer ? kInteger : kReal);
        std::ostringstream out;
        out.precision(17);
        try {
          if (integer) {
            long long v = std::stoll(text);
            const long long k = std::stoll(op.substr(1));
            long long r = k;
            if ((op[0] == '+' && __builtin_add_overflow(v, k, &r)) ||
                (op[0] == '-' && __builtin_sub_overflow(v, k, &r)) ||
                (op[0] == '*' && __builtin_mul_overflow(v, k, &r)))
              break;
            if (op[0] == '/') r = v / k;
            out << r;
          } else {
            out << std::stod(text) * std::stod(op.substr(1));
          }
        } catch (const std::logic_error&) {  // out of range for the arithmetic: leave it
          break;
        }
        replace(t, out.str());
        break;
      }
      case 0:
      case 1:  // a hostile number
        if (!numbers.empty()) replace(*rng_.pick(numbers), rng_.pick(kHostileNumbers));
        break;
      case 2:  // a hostile string
        if (!strings.empty()) replace(*rng_.pick(strings), rng_.pick(kHostileStrings));
        break;
      case 3:  // a value of another type
        if (!values.empty()) replace(*rng_.pick(values), rng_.pick(kOtherTypes));
        break;
      case 4: {  // a value wrapped in deep arrays or objects
        if (values.empty()) break;
        const auto& t = *rng_.pick(values);
        const auto depth = wrap_depth();
        if (s.size() + depth * 8 > kMaxMutantBytes) break;
        const auto value = s.substr(t.start, t.length);
        std::string wrapped;
        if (rng_.chance(70)) {
          wrapped = std::string(depth, '[') + value + std::string(depth, ']');
        } else {
          wrapped.reserve(depth * 8 + value.size());
          for (std::size_t i = 0; i < depth; ++i)
            wrapped += R"({"a":)";
          wrapped += value + std::string(depth, '}');
        }
        replace(t, wrapped);
        break;
      }
      case 5: {  // a key given twice, the first time with a hostile value
        if (keys.empty()) break;
        const auto& k = *rng_.pick(keys);
        const auto& value = rng_.chance(50) ? rng_.pick(kHostileNumbers) : rng_.pick(kOtherTypes);
        s.insert(k.start, s.substr(k.start, k.length) + ": " + value + ", ");
        break;
      }
      case 6: {  // a key renamed to another key of the file (a misplaced or repeated member)
        if (keys.size() < 2) break;
        const auto& k = *rng_.pick(keys);
        const auto& to = *rng_.pick(keys);
        replace(k, s.substr(to.start, to.length));
        break;
      }
      case 7: {  // a value replaced by a big array
        if (values.empty()) break;
        const std::size_t n = rng_.chance(80) ? 1000 : 200000;
        if (s.size() + n * 3 > kMaxMutantBytes) break;
        const std::string piece = rng_.chance(50) ? "[]," : "0,";
        std::string big = "[";
        big.reserve(n * piece.size() + 2);
        for (std::size_t i = 0; i < n; ++i)
          big += piece;
        big += "0]";
        replace(*rng_.pick(values), big);
        break;
      }
      default: {  // a whole seed of another kind in place of a value (a plan where a run is expected)
        if (values.empty()) break;
        const auto& o = other(Family::Json).text;
        if (s.size() + o.size() > kMaxMutantBytes) break;
        replace(*rng_.pick(values), o);
        break;
      }
    }
  }

  const std::vector<Seed>& seeds_;
  Rng rng_;
  std::size_t max_wrap_depth_;
};

// ---------------------------------------------------------------------------------------------
// Readers, in process, as the CLI and the GUI call them.

enum class Verdict { Accepted, Refused, Failed };

struct ReaderCounts {
  std::uint64_t accepted = 0, refused = 0, failed = 0;
};

class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c == EOF ? 0 : c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

struct Failure {
  std::string reader, type, what;
};

template <class F>
Verdict call_reader(F&& read, std::vector<Failure>& failures, const char* reader) {
  try {
    read();
    return Verdict::Accepted;
  } catch (const InputError& e) {
    if (e.file().empty()) {
      failures.push_back({reader, "InputError without a file", e.what()});
      return Verdict::Failed;
    }
    return Verdict::Refused;
  } catch (const Error&) {
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

const std::vector<Reader>& readers() {
  static const std::vector<Reader> all = [] {
    std::vector<Reader> r;
    r.push_back({"document (open in the GUI, validate)", Family::Json, [](const std::string& path) {
                   auto doc = load_document(path);
                   const auto project = project_from_document(std::move(doc), path);
                   (void)to_json(project).dump();  // what saving it writes
                 }});
    // Opening a project reads its kept plans and runs in full (saved_artifacts.h); the plan view
    // then summarises each plan and the run views read each run.
    r.push_back({"project plans and runs (plan and run views)", Family::Json, [](const std::string& path) {
                   const auto project = project_from_document(load_document(path), path);
                   engine::check_saved_artifacts(project, path);
                   for (const auto& plan : project.plans)
                     (void)engine::summarize_plan(plan.body, path);
                 }});
    r.push_back({"pipeline plan (simulate/sweep --plan)", Family::Json,
                 [](const std::string& path) { (void)engine::load_pipeline_plan(path); }});
    r.push_back({"glet plan (simulate --plan)", Family::Json,
                 [](const std::string& path) { (void)engine::load_glet_plan(path); }});
    r.push_back({"timeline (export chrome-trace)", Family::Json, [](const std::string& path) {
                   const auto timeline = engine::load_timeline(path);
                   NullBuffer null;
                   std::ostream out(&null);
                   engine::write_chrome_trace(out, timeline);
                 }});
    r.push_back({"run series (export metrics-csv, charts)", Family::Json, [](const std::string& path) {
                   const auto json = parse_json_text(read_text_file(path), path);
                   const auto series = engine::run_series(json, path);
                   NullBuffer null;
                   std::ostream out(&null);
                   engine::write_run_csv(out, series);
                 }});
    r.push_back({"load sweep (charts)", Family::Json, [](const std::string& path) {
                   (void)engine::attainment_vs_load(parse_json_text(read_text_file(path), path), path);
                 }});
    r.push_back({"alpha/beta CSV import", Family::Text, [](const std::string& path) {
                   (void)parse_alphabeta_csv(read_text_file(path), path, GpuCatalog::builtin());
                 }});
    r.push_back({"Nexus profile import", Family::Text, [](const std::string& path) {
                   (void)parse_nexus_profile(read_text_file(path), path, GpuCatalog::builtin());
                 }});
    r.push_back({"gpu-let utilisation import", Family::Text, [](const std::string& path) {
                   (void)parse_glet_utilisation(read_text_file(path), path, "RTX2080Ti");
                 }});
    r.push_back({"gpu-let interference import", Family::Text, [](const std::string& path) {
                   (void)parse_glet_interference(read_text_file(path), path, "RTX2080Ti");
                 }});
    r.push_back({"partition latency import", Family::Text, [](const std::string& path) {
                   (void)parse_partition_latency_csv(read_text_file(path), path, "RTX2080Ti");
                 }});
    r.push_back({"trace file", Family::Text, [](const std::string& path) { (void)load_trace_file(path); }});
    return r;
  }();
  return all;
}

// ---------------------------------------------------------------------------------------------
// Crashes and hangs: the input at hand is saved first.

std::mutex g_current_mutex;
const std::string* g_current = nullptr;     // the mutant being read
std::atomic<std::int64_t> g_started_ns{0};  // when its reading began (0: between inputs)
std::array<char, 4096> g_crash_path{};
struct sigaction g_previous[NSIG];

void save_current_from_signal() {
  if (!g_current) return;
  const int fd = ::open(g_crash_path.data(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const char* p = g_current->data();
  std::size_t left = g_current->size();
  while (left > 0) {
    const auto n = ::write(fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::close(fd);
  const char msg[] = "\nfile_fuzz: a signal while reading an input; it is saved at ";
  (void)!::write(2, msg, sizeof msg - 1);
  (void)!::write(2, g_crash_path.data(), std::strlen(g_crash_path.data()));
  (void)!::write(2, "\n", 1);
}

void on_crash(int sig, siginfo_t*, void*) {
  save_current_from_signal();
  // Hand the signal on (to the sanitizer's handler, or the default): it fires again on return.
  ::sigaction(sig, &g_previous[sig], nullptr);
  if (sig == SIGABRT) ::raise(sig);
}

void install_crash_handlers() {
  static std::vector<char> alt_stack(1u << 20);
  stack_t ss{};
  ss.ss_sp = alt_stack.data();
  ss.ss_size = alt_stack.size();
  ::sigaltstack(&ss, nullptr);
  for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction sa {};
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, &g_previous[sig]);
  }
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::int64_t cpu_ns(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// The reading thread's CPU clock, and its reading when the input at hand began.
clockid_t g_reader_clock{};
std::atomic<std::int64_t> g_started_cpu_ns{0};

// A hang is `limit` of the reading thread's own CPU time on one input: a loaded machine (ctest
// runs two tests at once, ASan triples the work) stretches the wall clock, not that. A read
// that blocks uses no CPU, so ten times the limit of wall time counts as a hang too.
void watchdog(std::chrono::seconds limit, const fs::path& hang_path, const std::atomic<bool>& done) {
  const auto limit_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(limit).count();
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::lock_guard lock(g_current_mutex);
    const auto started = g_started_ns.load();
    if (started == 0) continue;
    const bool busy = cpu_ns(g_reader_clock) - g_started_cpu_ns.load() >= limit_ns;
    const bool blocked = now_ns() - started >= 10 * limit_ns;
    if (!busy && !blocked) continue;
    if (g_current) std::ofstream(hang_path, std::ios::binary) << *g_current;
    std::cerr << "\nfile_fuzz: HANG: one input has been read for more than "
              << (busy ? std::to_string(limit.count()) + " s of CPU time" : std::to_string(10 * limit.count()) + " s")
              << "; it is saved at " << hang_path << "\n";
    ::signal(SIGABRT, SIG_DFL);
    std::abort();
  }
}

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
          o.replay.push_back(argv[i]);
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
