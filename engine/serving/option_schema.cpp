#include "engine/serving/option_schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "model/core/error.h"

namespace servescope::engine {
namespace {

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

std::string number_text(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

void check_range(const OptionSpec& option, double x) {
  if (!(x >= option.min && x <= option.max))
    throw QueryError(number_text(x) + " is not in " + number_text(option.min) + " to " + number_text(option.max));
}

double parse_real(std::string_view text) {
  const auto word = trimmed(text);
  double x = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), x);
  if (word.empty() || ec != std::errc() || end != word.data() + word.size() || !std::isfinite(x))
    throw QueryError("'" + std::string(text) + "' is not a number");
  return x;
}

std::int64_t parse_integer(std::string_view text) {
  const auto word = trimmed(text);
  std::int64_t x = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), x);
  if (word.empty() || ec != std::errc() || end != word.data() + word.size())
    throw QueryError("'" + std::string(text) + "' is not a whole number");
  return x;
}

std::string joined_choices(const OptionSpec& option) {
  std::string out;
  for (const auto& c : option.choices)
    out += (out.empty() ? "" : ", ") + c;
  return out;
}

}  // namespace

OptionValue parse_option_value(const OptionSpec& option, std::string_view text) {
  OptionValue value;
  switch (option.type) {
    case OptionType::Flag: {
      const auto word = trimmed(text);
      if (word == "true" || word == "1" || word == "on") {
        value = true;
      } else if (word == "false" || word == "0" || word == "off") {
        value = false;
      } else {
        throw QueryError("'" + std::string(text) + "' is neither true nor false");
      }
      break;
    }
    case OptionType::Integer:
      value = parse_integer(text);
      break;
    case OptionType::Real:
      value = parse_real(text);
      break;
    case OptionType::Choice:
    case OptionType::Text:
      value = trimmed(text);
      break;
    case OptionType::IntegerList: {
      // "1,2,4" or with ranges, "1-4,8".
      std::vector<int> list;
      std::string_view rest = text;
      while (true) {
        const auto comma = rest.find(',');
        const auto item = trimmed(rest.substr(0, comma));
        if (item.empty()) throw QueryError("'" + std::string(text) + "' has an empty item");
        const auto dash = item.find('-', 1);
        const auto lo = parse_integer(item.substr(0, dash));
        const auto hi = dash == std::string::npos ? lo : parse_integer(item.substr(dash + 1));
        check_range(option, static_cast<double>(lo));
        check_range(option, static_cast<double>(hi));
        if (hi < lo) throw QueryError("'" + item + "' is a range that ends before it starts");
        for (auto x = lo; x <= hi; ++x)
          list.push_back(static_cast<int>(x));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
      value = std::move(list);
      break;
    }
    case OptionType::TextList:
      value = std::vector<std::string>{trimmed(text)};
      break;
  }
  check_option_value(option, value);
  return value;
}

void check_option_value(const OptionSpec& option, const OptionValue& value) {
  const auto wrong_type = [&] { throw QueryError("a value of the wrong type for option '" + option.name + "'"); };
  switch (option.type) {
    case OptionType::Flag:
      if (!std::holds_alternative<bool>(value)) wrong_type();
      return;
    case OptionType::Integer:
      if (!std::holds_alternative<std::int64_t>(value)) wrong_type();
      check_range(option, static_cast<double>(std::get<std::int64_t>(value)));
      return;
    case OptionType::Real:
      if (!std::holds_alternative<double>(value)) wrong_type();
      check_range(option, std::get<double>(value));
      return;
    case OptionType::Choice: {
      if (!std::holds_alternative<std::string>(value)) wrong_type();
      const auto& word = std::get<std::string>(value);
      if (std::ranges::find(option.choices, word) == option.choices.end())
        throw QueryError("'" + word + "' is not one of " + joined_choices(option));
      return;
    }
    case OptionType::Text:
      if (!std::holds_alternative<std::string>(value)) wrong_type();
      return;
    case OptionType::IntegerList:
      if (!std::holds_alternative<std::vector<int>>(value)) wrong_type();
      for (const int x : std::get<std::vector<int>>(value))
        check_range(option, x);
      return;
    case OptionType::TextList:
      if (!std::holds_alternative<std::vector<std::string>>(value)) wrong_type();
      return;
  }
}

std::string format_option_value(const OptionValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<V, std::int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<V, double>) {
          return number_text(v);
        } else if constexpr (std::is_same_v<V, std::string>) {
          return v;
        } else if constexpr (std::is_same_v<V, std::vector<int>>) {
          std::string out;
          for (const int x : v)
            out += (out.empty() ? "" : ",") + std::to_string(x);
          return out;
        } else {
          std::string out;
          for (const auto& x : v)
            out += (out.empty() ? "" : " ") + x;
          return out;
        }
      },
      value);
}

}  // namespace servescope::engine
