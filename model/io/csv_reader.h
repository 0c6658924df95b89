// A strict reader for the comma-separated tables that profiling tools write: no quoting
// (none of the formats we read uses it), blank lines and `#` comments skipped, every cell
// located by line and column in error messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace servescope {

struct CsvRow {
  int line = 0;  // 1-based line number in the file
  std::vector<std::string_view> cells;
};

class CsvDocument {
 public:
  // Keeps its own copy of `text`; rows point into it. Rejects non-UTF-8 text.
  CsvDocument(std::string text, std::string file);
  CsvDocument(const CsvDocument&) = delete;
  CsvDocument& operator=(const CsvDocument&) = delete;

  const std::string& file() const { return file_; }
  const std::vector<CsvRow>& rows() const { return rows_; }

  // Cell accessors that throw InputError("file", "line L, column C", reason).
  std::string_view cell(const CsvRow& row, std::size_t col) const;
  double number(const CsvRow& row, std::size_t col, double min, double max) const;
  long long integer(const CsvRow& row, std::size_t col, long long min, long long max) const;
  void expect_columns(const CsvRow& row, std::size_t at_least) const;
  [[noreturn]] void fail(const CsvRow& row, std::size_t col, const std::string& reason) const;
  [[noreturn]] void fail(const CsvRow& row, const std::string& reason) const;

 private:
  std::string text_;
  std::string file_;
  std::vector<CsvRow> rows_;
};

}  // namespace servescope
