#include "model/io/trace_file.h"

#include "model/core/error.h"
#include "model/core/text.h"
#include "model/io/csv_reader.h"
#include "model/io/file_io.h"

namespace servescope {

std::vector<Duration> parse_trace(const std::string& text, const std::string& file) {
  const CsvDocument doc(text, file);
  std::vector<Duration> out;
  out.reserve(doc.rows().size());
  double first = 0, last = 0;
  for (const auto& row : doc.rows()) {
    if (row.cells.size() != 1) doc.fail(row, "expected one timestamp (seconds) per line");
    const double t = doc.number(row, 0, -1e9, 1e9);
    if (out.empty())
      first = t;
    else if (t < last)
      doc.fail(row, 0, "timestamps must not decrease (" + format_number(t) + " after " + format_number(last) + ")");
    last = t;
    out.push_back(Duration::from_s(t - first));
  }
  if (out.size() < 2) throw InputError(file, "", "a trace needs at least two arrivals");
  if (out.back() == Duration()) throw InputError(file, "", "all arrivals are at the same instant");
  return out;
}

std::vector<Duration> load_trace_file(const std::string& path) {
  return parse_trace(read_text_file(path), path);
}

}  // namespace servescope
