#include "tests/support/test_support.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/un.h>

namespace servescope::test {
namespace fs = std::filesystem;

TempDir::TempDir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto p = fs::temp_directory_path() / ("servescope-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    if (fs::create_directory(p)) {
      path_ = p;
      return;
    }
  }
  throw std::runtime_error("cannot create a temporary folder");
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, std::string_view contents) const {
  const auto p = path_ / name;
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
  return p.string();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path shared_data_dir() {
  if (const char* env = std::getenv("SERVESCOPE_SHARED_DATA"); env && *env) {
    if (fs::is_directory(env)) return env;
    return {};
  }
  const fs::path built_in = SERVESCOPE_SHARED_DATA_DIR;
  if (fs::is_directory(built_in)) return built_in;
  return {};
}

int bound_unix_socket(const std::filesystem::path& path, bool listen) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const auto& name = path.native();
  if (name.size() >= sizeof(address.sun_path)) throw std::runtime_error(name + ": too long for a socket");
  std::memcpy(address.sun_path, name.c_str(), name.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      (listen && ::listen(fd, 4) != 0)) {
    const int error = errno;
    ::close(fd);
    throw std::runtime_error(name + ": " + std::strerror(error));
  }
  return fd;
}

void write_fake_mps_control(const fs::path& bin, bool comes_up) {
  const auto program = bin / "nvidia-cuda-mps-control";
  std::ofstream(program) << "#!/bin/sh\n[ \"$1\" = -d ] || exit 3\n"
                         << (comes_up
                                 ? "/usr/bin/python3 -c 'import os, socket, time; s = socket.socket(socket.AF_UNIX); "
                                   "s.bind(os.environ[\"CUDA_MPS_PIPE_DIRECTORY\"] + \"/control\"); "
                                   "s.listen(4); time.sleep(5)' >/dev/null 2>&1 &\n"
                                 : "")
                         << "exit 0\n";
  fs::permissions(program, fs::perms::owner_all);
}

std::string program_beside_or(std::string_view name, std::string_view built) {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = self.parent_path() / name;
    if (fs::is_regular_file(beside, ec)) return beside.string();
  }
  return std::string(built);
}

}  // namespace servescope::test
