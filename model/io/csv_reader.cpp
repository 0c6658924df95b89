#include "model/io/csv_reader.h"

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope {

CsvDocument::CsvDocument(std::string text, std::string file) : text_(std::move(text)), file_(std::move(file)) {
  if (auto bad = first_invalid_utf8(text_)) {
    int line = 1;
    for (std::size_t i = 0; i < *bad; ++i)
      if (text_[i] == '\n') ++line;
    throw InputError(file_, "line " + std::to_string(line), "text is not valid UTF-8");
  }
  std::string_view rest = text_;
  int line = 0;
  while (!rest.empty()) {
    ++line;
    const auto nl = rest.find('\n');
    std::string_view raw = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const auto content = trim(raw);
    if (content.empty() || content.front() == '#') continue;
    CsvRow row{line, {}};
    std::size_t start = 0;
    while (true) {
      const auto comma = raw.find(',', start);
      row.cells.push_back(trim(raw.substr(start, comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    // Several tools end rows with a trailing comma; an empty last cell carries nothing.
    if (row.cells.size() > 1 && row.cells.back().empty()) row.cells.pop_back();
    rows_.push_back(std::move(row));
  }
}

void CsvDocument::fail(const CsvRow& row, std::size_t col, const std::string& reason) const {
  throw InputError(file_, "line " + std::to_string(row.line) + ", column " + std::to_string(col + 1), reason);
}

void CsvDocument::fail(const CsvRow& row, const std::string& reason) const {
  throw InputError(file_, "line " + std::to_string(row.line), reason);
}

void CsvDocument::expect_columns(const CsvRow& row, std::size_t at_least) const {
  if (row.cells.size() < at_least)
    fail(row, "expected at least " + std::to_string(at_least) + " columns, found " + std::to_string(row.cells.size()));
}

std::string_view CsvDocument::cell(const CsvRow& row, std::size_t col) const {
  if (col >= row.cells.size()) fail(row, col, "missing column (the row has " + std::to_string(row.cells.size()) + ")");
  return row.cells[col];
}

double CsvDocument::number(const CsvRow& row, std::size_t col, double min, double max) const {
  const auto text = cell(row, col);
  const auto v = parse_finite_double(text);
  if (!v) fail(row, col, "expected a number, got " + quote_for_message(text));
  if (*v < min || *v > max)
    fail(row, col, "value " + std::string(text) + " is outside " + format_number(min) + " .. " + format_number(max));
  return *v;
}

long long CsvDocument::integer(const CsvRow& row, std::size_t col, long long min, long long max) const {
  const auto text = cell(row, col);
  const auto v = parse_integer(text);
  if (!v) fail(row, col, "expected an integer, got " + quote_for_message(text));
  if (*v < min || *v > max)
    fail(row, col, "value " + std::string(text) + " is outside " + std::to_string(min) + " .. " + std::to_string(max));
  return *v;
}

}  // namespace servescope
