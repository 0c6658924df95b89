#include "tests/gui/gui_test_main.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace servescope::test {
namespace {

// A function-local map: the suites register during static initialisation, in no set order.
std::map<std::string, GuiSuiteMain>& suites() {
  static std::map<std::string, GuiSuiteMain> all;
  return all;
}

int usage(const char* program, FILE* to) {
  std::fprintf(to, "usage: %s SUITE [QTest arguments]\nsuites:", program);
  for (const auto& [name, main] : suites())
    std::fprintf(to, " %s", name.c_str());
  std::fprintf(to, "\n");
  return to == stdout ? 0 : 2;
}

}  // namespace

bool register_gui_suite(const char* name, GuiSuiteMain main) {
  suites().emplace(name, main);
  return true;
}

}  // namespace servescope::test

int main(int argc, char** argv) {
  using servescope::test::suites;
  if (argc < 2) return servescope::test::usage(argv[0], stderr);
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "--list") == 0)
    return servescope::test::usage(argv[0], stdout);
  const auto suite = suites().find(argv[1]);
  if (suite == suites().end()) {
    std::fprintf(stderr, "%s: no GUI suite named '%s'\n", argv[0], argv[1]);
    return servescope::test::usage(argv[0], stderr);
  }
  // The suite sees its own arguments after the program, as its own executable did.
  argv[1] = argv[0];
  return suite->second(argc - 1, argv + 1);
}
