// Errors that reach users. Every input problem names the file, the place in it (a JSON path
// such as `$.cluster.nodes[2].gpu_count`, or `line 14, column 3` for CSV and text) and the
// reason, so the CLI and the GUI can print it as is.
#pragma once

#include <stdexcept>
#include <string>

namespace servescope {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file that cannot be read, parsed or accepted.
class InputError : public Error {
 public:
  InputError(std::string file, std::string where, std::string reason);

  const std::string& file() const { return file_; }
  const std::string& where() const { return where_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  std::string where_;
  std::string reason_;
};

// A question the data cannot answer, e.g. a latency for a batch size that was never profiled.
class QueryError : public Error {
 public:
  using Error::Error;
};

// Long work (a simulation, a sweep) that was asked to stop before it finished.
class Cancelled : public Error {
 public:
  using Error::Error;
};

}  // namespace servescope
