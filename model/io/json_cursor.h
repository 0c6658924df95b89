// Typed, located reading of JSON documents. A cursor is a JSON value plus the path that leads
// to it, so every complaint can say exactly where it is ("$.nodes[3].gpu_count: expected an
// integer from 1 to 4096, got -2").
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "model/core/time.h"
#include "model/io/json_text.h"

namespace servescope {

class JsonCursor {
 public:
  JsonCursor(const nlohmann::json& value, const std::string& file, std::string path = "$")
      : value_(&value), file_(&file), path_(std::move(path)) {}

  const nlohmann::json& value() const { return *value_; }
  std::string path() const;
  const std::string& file() const { return *file_; }

  JsonCursor at(std::string_view key) const;  // required member
  std::optional<JsonCursor> find(std::string_view key) const;
  JsonCursor operator[](std::size_t index) const;  // array element
  // An array element whose path is only built when asked for (when reading it fails), so that
  // reading a million rows builds no strings. It refers to this cursor for that path and must
  // not outlive it, hence no elements of temporaries.
  JsonCursor element(std::size_t index) const& {
    if (!value_->is_array() || index >= value_->size()) fail_element(index);
    return JsonCursor((*value_)[index], *this, index);
  }
  JsonCursor element(std::size_t index) const&& = delete;
  std::size_t size() const;  // array length; fails if not an array
  bool is_null() const { return value_->is_null(); }

  // Fails unless the value is an object whose keys are all in `allowed`: a misspelt key is
  // a mistake the user wants to hear about, not a silently ignored setting.
  void expect_object(std::initializer_list<std::string_view> allowed) const;
  void expect_object() const;  // any keys, e.g. an object keyed by data
  void expect_array() const;

  std::string as_string(bool allow_empty = false) const;
  bool as_bool() const;
  std::int64_t as_int(std::int64_t min, std::int64_t max) const;
  // Inline on its success path: timelines read millions of numbers through it.
  double as_double(double min, double max) const {
    if (value_->is_number())
      if (const double v = value_->get<double>(); std::isfinite(v) && v >= min && v <= max) return v;
    fail_number(min, max);
  }
  Duration as_duration_us(double min_us = 0.0, double max_us = kMaxFileDurationUs) const;

  // Shorthands for optional members with defaults.
  std::string string_or(std::string_view key, std::string fallback) const;
  double double_or(std::string_view key, double fallback, double min, double max) const;
  std::int64_t int_or(std::string_view key, std::int64_t fallback, std::int64_t min, std::int64_t max) const;
  bool bool_or(std::string_view key, bool fallback) const;

  [[noreturn]] void fail(const std::string& reason) const;

 private:
  [[noreturn]] void fail_element(std::size_t index) const;
  [[noreturn]] void fail_number(double min, double max) const;
  JsonCursor(const nlohmann::json& value, const JsonCursor& parent, std::size_t index)
      : value_(&value), file_(parent.file_), parent_(&parent), index_(index) {}

  const nlohmann::json* value_;
  const std::string* file_;
  std::string path_;                    // empty for an element(): its path is parent_'s + [index_]
  const JsonCursor* parent_ = nullptr;  // set for an element() only
  std::size_t index_ = 0;
};

// Checks `schema_version` and `kind` at the top of a document.
void expect_document_header(const JsonCursor& root, std::string_view kind);
inline constexpr int kSchemaVersion = 1;

// Short description of a JSON value's type and contents, for error messages.
std::string describe_json(const nlohmann::json& value);

}  // namespace servescope
