// Helpers shared by the test executables: scratch folders, small file writers, and the
// location of the published reference data (absent in a user's clone: tests then skip).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace servescope::test {

// A fresh folder under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes `contents` to path()/name and returns the full path.
  std::string write(const std::string& name, std::string_view contents) const;

 private:
  std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& path);

// ../shared/data beside the checkout, or $SERVESCOPE_SHARED_DATA; empty when neither exists.
std::filesystem::path shared_data_dir();

// A Unix stream socket bound at `path` (the file stays after close), listening when `listen` is
// set: a daemon's control socket as the MPS tests need one, live or left behind by a dead daemon.
// Returns its descriptor; throws std::runtime_error naming the path and the reason.
int bound_unix_socket(const std::filesystem::path& path, bool listen);

// An nvidia-cuda-mps-control in folder `bin` that, given -d, leaves a daemon (python3) holding a
// listening control socket in $CUDA_MPS_PIPE_DIRECTORY for five seconds, or (comes_up false)
// returns without one: the MPS daemon as ensure_mps starts it (engine/gpu/mps_control.h).
void write_fake_mps_control(const std::filesystem::path& bin, bool comes_up);

// The program `name` beside this test executable where it is there (a bundle copied elsewhere:
// scripts/gpu_bundle.sh), else `built`, its path in the build tree.
std::string program_beside_or(std::string_view name, std::string_view built);

// Whether this test executable is built with the sanitizers (the asan preset, tests/CMakeLists.txt).
// A test that checks one property over many random cases checks the first few there: ASan and
// UBSan see the same code paths on each case, at 20-40 times the dev tree's run time, and the dev
// tree checks every case.
#ifdef SERVESCOPE_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace servescope::test

// Skips the current GoogleTest test with a message when the reference data is absent.
#define SERVESCOPE_REQUIRE_SHARED_DATA(subdir)                                                         \
  const auto shared_data = ::servescope::test::shared_data_dir();                                      \
  if (shared_data.empty() || !std::filesystem::exists(shared_data / (subdir)))                         \
  GTEST_SKIP() << "reference data " << (subdir) << " not found (looked for ../shared/data beside the " \
               << "checkout and $SERVESCOPE_SHARED_DATA); this test needs it"
