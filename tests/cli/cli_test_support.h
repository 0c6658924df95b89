// Helpers shared by the servescope-cli end-to-end tests (tests/cli/cli_*_test.cpp): running the
// built servescope-cli with arguments and collecting its exit status, standard output and error.
#pragma once

#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "tests/support/test_support.h"

namespace servescope::test {

struct Run {
  int status = -1;
  std::string out, err;
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline Run cli(const std::vector<std::string>& args) {
  TempDir tmp;
  std::string cmd = shell_quote(SERVESCOPE_CLI);
  for (const auto& a : args)
    cmd += " " + shell_quote(a);
  cmd += " >" + shell_quote((tmp.path() / "out").string()) + " 2>" + shell_quote((tmp.path() / "err").string()) +
         " </dev/null";
  const int rc = std::system(cmd.c_str());
  Run r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = servescope::test::read_file(tmp.path() / "out");
  r.err = servescope::test::read_file(tmp.path() / "err");
  return r;
}

}  // namespace servescope::test
