#include "model/io/json_text.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope {
namespace {

using Json = nlohmann::json;

std::string line_and_column(std::string_view text, std::size_t byte) {
  byte = std::min(byte, text.size());
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i + 1 < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// nlohmann's messages read "[json.exception.parse_error.101] parse error at line 1, column 2:
// syntax error while parsing value - invalid literal; …"; the location is ours to give.
std::string library_reason(const std::string& what) {
  std::string reason = what;
  if (reason.starts_with("[json.exception."))
    if (const auto pos = reason.find("] "); pos != std::string::npos) reason = reason.substr(pos + 2);
  if (reason.starts_with("parse error"))
    if (const auto pos = reason.find(": "); pos != std::string::npos) reason = reason.substr(pos + 2);
  for (const std::string_view noise : {"syntax error while parsing value - ", "syntax error while parsing object - ",
                                       "syntax error while parsing array - "})
    if (reason.starts_with(noise)) reason = reason.substr(noise.size());
  return reason;
}

// Builds the value from nlohmann's (iterative) SAX parser, so that nesting is checked before a
// level is added and a repeated key is seen while its object is still open.
class BoundedDomBuilder {
 public:
  explicit BoundedDomBuilder(std::size_t max_depth) : max_depth_(max_depth) {}

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(Json::number_integer_t v) { return add(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return add(v); }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return add(v); }
  bool string(Json::string_t& v) { return add(std::move(v)); }
  bool binary(Json::binary_t&) { return refuse("binary values are not JSON"); }
  bool start_object(std::size_t) { return open(Json::value_t::object); }
  bool start_array(std::size_t) { return open(Json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& name) {
    Frame& top = stack_.back();
    auto [it, inserted] = top.value->get_ref<Json::object_t&>().emplace(std::move(name), nullptr);
    if (!inserted) {
      error_path_ = path(stack_.size() - 1) + "." + it->first;
      return refuse("the key " + quote_for_message(it->first) +
                    " appears twice in this object; which one is meant is not clear, so neither is read");
    }
    top.key = &it->first;
    top.slot = &it->second;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    error_byte_ = position;
    error_ = library_reason(e.what());
    return false;
  }

  Json take() { return std::move(root_); }
  const std::string& error() const { return error_; }
  const std::optional<std::string>& error_path() const { return error_path_; }
  std::size_t error_byte() const { return error_byte_; }

 private:
  struct Frame {
    Json* value;
    const std::string* key = nullptr;  // objects: the member being read
    Json* slot = nullptr;              // objects: where that member's value goes
  };

  Json* place(Json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& top = stack_.back();
    if (top.value->is_array()) {
      auto& array = top.value->get_ref<Json::array_t&>();
      array.push_back(std::move(v));
      return &array.back();
    }
    *top.slot = std::move(v);
    return top.slot;
  }
  template <typename T>
  bool add(T&& v) {
    place(Json(std::forward<T>(v)));
    return true;
  }
  bool open(Json::value_t type) {
    Json* value = place(Json(type));
    if (stack_.size() >= max_depth_) {
      error_path_ = path(stack_.size());
      return refuse("nested deeper than " + std::to_string(max_depth_) + " levels");
    }
    stack_.push_back({value});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  bool refuse(std::string reason) {
    error_ = std::move(reason);
    return false;
  }
  // The path to the member or element frame `count - 1` is reading now (its latest child).
  std::string path(std::size_t count) const {
    std::string p = "$";
    for (std::size_t i = 0; i < count; ++i) {
      const Frame& f = stack_[i];
      if (f.value->is_array())
        p += "[" + std::to_string(f.value->size() - 1) + "]";
      else if (f.key)
        p += "." + *f.key;
    }
    return p;
  }

  std::size_t max_depth_;
  Json root_;
  std::vector<Frame> stack_;
  std::string error_;
  std::optional<std::string> error_path_;
  std::size_t error_byte_ = 0;
};

std::string megabytes(std::size_t bytes) {
  return std::to_string((bytes + (1 << 19)) >> 20) + " MiB";
}

}  // namespace

std::size_t estimated_json_memory_bytes(std::string_view text) {
  // Counted from the characters that start values, outside strings. The constants are what
  // nlohmann's value takes with libstdc++: 16 bytes a value (24 with the array's spare
  // capacity), a heap vector or map behind each container, a map node and key per member, and
  // heap space for strings past the 15 characters kept inline.
  std::size_t values = 0, arrays = 0, objects = 0, members = 0, strings = 0, string_heap = 0;
  bool expect_value = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '[':
        ++arrays, ++values, expect_value = true;
        break;
      case '{':
        ++objects, ++values, expect_value = true;
        break;
      case ',':
        expect_value = true;
        break;
      case ':':
        ++members, expect_value = true;
        break;
      case '"': {
        const std::size_t start = ++i;
        while (i < text.size() && text[i] != '"')
          i += text[i] == '\\' ? 2u : 1u;
        if (const std::size_t length = i - start; length > 15) string_heap += length + 17;
        ++strings;
        expect_value = false;
        break;
      }
      case ' ':
      case '\t':
      case '\n':
      case '\r':
        break;
      default:
        if (expect_value) ++values;  // a number, true, false or null
        expect_value = false;
    }
  }
  // A key lives in its map node; a string value is a pointer to a heap std::string.
  const std::size_t string_values = strings - std::min(strings, members);
  values += string_values;
  return values * 24 + arrays * 40 + objects * 64 + members * 96 + string_values * 48 + string_heap;
}

std::size_t json_memory_budget(std::size_t text_bytes, const JsonLimits& limits) {
  return std::clamp(limits.bytes_per_text_byte * text_bytes, limits.min_budget_bytes, limits.max_budget_bytes);
}

Json parse_json_text(std::string_view text, const std::string& file, const JsonLimits& limits) {
  const std::size_t budget = json_memory_budget(text.size(), limits);
  if (const std::size_t need = estimated_json_memory_bytes(text); need > budget)
    throw InputError(file, "",
                     "this JSON would take about " + megabytes(need) + " of memory once read, more than the " +
                         megabytes(budget) + " allowed for a text of " + megabytes(text.size()));
  BoundedDomBuilder builder(limits.max_depth);
  bool ok = false;
  try {
    ok = Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const Json::exception& e) {
    throw InputError(file, "", "invalid JSON: " + library_reason(e.what()));
  }
  if (!ok) {
    if (builder.error_path()) throw InputError(file, *builder.error_path(), builder.error());
    throw InputError(file, line_and_column(text, builder.error_byte()), "invalid JSON: " + builder.error());
  }
  return builder.take();
}

}  // namespace servescope
