#include "model/io/json_cursor.h"

#include <algorithm>
#include <cmath>

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope {

std::string describe_json(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::string:
      return "the string " + quote_for_message(value.get_ref<const std::string&>());
    case nlohmann::json::value_t::number_integer:
      return std::to_string(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return std::to_string(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return format_number(value.get<double>());
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    default:
      return "an unsupported value";
  }
}

std::string JsonCursor::path() const {
  return parent_ ? parent_->path() + "[" + std::to_string(index_) + "]" : path_;
}

void JsonCursor::fail(const std::string& reason) const {
  throw InputError(*file_, path(), reason);
}

JsonCursor JsonCursor::at(std::string_view key) const {
  expect_object();
  const auto it = value_->find(key);
  if (it == value_->end()) fail("missing required member '" + std::string(key) + "'");
  return JsonCursor(*it, *file_, path() + "." + std::string(key));
}

std::optional<JsonCursor> JsonCursor::find(std::string_view key) const {
  expect_object();
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonCursor(*it, *file_, path() + "." + std::string(key));
}

JsonCursor JsonCursor::operator[](std::size_t index) const {
  const auto e = element(index);
  return JsonCursor(e.value(), *file_, e.path());
}

void JsonCursor::fail_element(std::size_t index) const {
  expect_array();
  fail("index " + std::to_string(index) + " out of range");
}

std::size_t JsonCursor::size() const {
  expect_array();
  return value_->size();
}

void JsonCursor::expect_object(std::initializer_list<std::string_view> allowed) const {
  expect_object();
  for (const auto& [key, _] : value_->items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string list;
      for (auto a : allowed)
        list += (list.empty() ? "" : ", ") + std::string(a);
      throw InputError(*file_, path() + "." + key, "unknown member (expected one of: " + list + ")");
    }
  }
}

void JsonCursor::expect_object() const {
  if (!value_->is_object()) fail("expected an object, got " + describe_json(*value_));
}

void JsonCursor::expect_array() const {
  if (!value_->is_array()) fail("expected an array, got " + describe_json(*value_));
}

std::string JsonCursor::as_string(bool allow_empty) const {
  if (!value_->is_string()) fail("expected a string, got " + describe_json(*value_));
  const auto& s = value_->get_ref<const std::string&>();
  if (!allow_empty && trim(s).empty()) fail("must not be empty");
  if (s.size() > 4096) fail("string is longer than 4096 characters");
  return s;
}

bool JsonCursor::as_bool() const {
  if (!value_->is_boolean()) fail("expected true or false, got " + describe_json(*value_));
  return value_->get<bool>();
}

std::int64_t JsonCursor::as_int(std::int64_t min, std::int64_t max) const {
  std::int64_t v = 0;
  bool ok = false;
  if (value_->is_number_integer()) {
    v = value_->get<std::int64_t>();
    ok = true;
  } else if (value_->is_number_unsigned()) {
    const auto u = value_->get<std::uint64_t>();
    ok = u <= static_cast<std::uint64_t>(INT64_MAX);
    v = static_cast<std::int64_t>(u);
  } else if (value_->is_number_float()) {
    const double d = value_->get<double>();
    // 8.0 is accepted as 8; 8.5 is not.
    ok = std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15;
    v = static_cast<std::int64_t>(d);
  }
  if (!ok || v < min || v > max)
    fail("expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
         describe_json(*value_));
  return v;
}

void JsonCursor::fail_number(double min, double max) const {
  fail("expected a number from " + format_number(min) + " to " + format_number(max) + ", got " +
       describe_json(*value_));
}

Duration JsonCursor::as_duration_us(double min_us, double max_us) const {
  return Duration::from_us(as_double(min_us, max_us));
}

std::string JsonCursor::string_or(std::string_view key, std::string fallback) const {
  if (auto c = find(key)) return c->as_string(true);
  return fallback;
}

double JsonCursor::double_or(std::string_view key, double fallback, double min, double max) const {
  if (auto c = find(key)) return c->as_double(min, max);
  return fallback;
}

std::int64_t JsonCursor::int_or(std::string_view key, std::int64_t fallback, std::int64_t min, std::int64_t max) const {
  if (auto c = find(key)) return c->as_int(min, max);
  return fallback;
}

bool JsonCursor::bool_or(std::string_view key, bool fallback) const {
  if (auto c = find(key)) return c->as_bool();
  return fallback;
}

void expect_document_header(const JsonCursor& root, std::string_view kind) {
  if (!root.value().is_object()) root.fail("expected a JSON object at the top level");
  const auto version = root.at("schema_version").as_int(1, 1'000'000);
  if (version != kSchemaVersion)
    root.at("schema_version")
        .fail("unsupported schema_version " + std::to_string(version) + " (this build reads version " +
              std::to_string(kSchemaVersion) + ")");
  const auto k = root.at("kind").as_string();
  if (k != kind) root.at("kind").fail("expected kind '" + std::string(kind) + "', got '" + k + "'");
}

}  // namespace servescope
