// file_fuzz's mutations: byte flips, insertions, deletions, duplicated ranges, splices of two seeds,
// hostile CSV cells, repeated lines, and JSON-aware ones (hostile numbers, strings naming devices,
// FIFOs and the file itself, values of another type, deep wrapping, duplicated and renamed keys,
// big arrays, nudged numbers, a whole seed in place of a value).
#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/fuzz/file_fuzz_support.h"

namespace file_fuzz {
namespace {

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

}  // namespace

std::pair<std::string, std::size_t> Mutator::next() {
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

const Seed& Mutator::other(Family family) {
  for (;;) {
    const auto& s = rng_.pick(seeds_);
    if (s.family == family) return s;
  }
}

void Mutator::byte_mutation(std::string& s, Family family) {
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

std::size_t Mutator::wrap_depth() {
  static const std::vector<std::size_t> kDepths = {2, 8, 63, 64, 65, 100, 1000, 10000, 100000, 1000000};
  for (;;) {
    const auto d = kDepths[rng_.chance(85) ? rng_.below(6) : 6 + rng_.below(kDepths.size() - 6)];
    if (d <= max_wrap_depth_) return d;
    if (max_wrap_depth_ < 2) return 1;
  }
}

void Mutator::json_mutation(std::string& s) {
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
              (op[0] == '-' && __builtin_sub_overflow(v, k, &r)) || (op[0] == '*' && __builtin_mul_overflow(v, k, &r)))
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

}  // namespace file_fuzz
