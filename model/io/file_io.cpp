#include "model/io/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <vector>

#include "model/core/error.h"

namespace servescope {
namespace fs = std::filesystem;

std::string read_text_file(const fs::path& path, std::size_t max_bytes) {
  const std::string name = path.string();
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw InputError(name, "", "no such file");
  if (fs::is_directory(status)) throw InputError(name, "", "is a directory, not a file");
  const auto size = fs::file_size(path, ec);
  if (!ec && size > max_bytes)
    throw InputError(
        name, "", "file is " + std::to_string(size) + " bytes; the limit is " + std::to_string(max_bytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(name, "", std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  data.resize(static_cast<std::size_t>(size));
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  if (in.bad()) throw InputError(name, "", "read error");
  data.resize(static_cast<std::size_t>(in.gcount()));
  return data;
}

void write_file_atomic(const fs::path& path, std::string_view contents) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0)
    throw Error(path.string() + ": cannot create a temporary file in " + dir.string() + ": " + std::strerror(errno));
  const std::string tmp(buf.data());
  auto fail = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw Error(path.string() + ": " + what + ": " + std::strerror(err));
  };
  const char* p = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  // Keep the permissions a user would get from a plain create (mkstemp makes 0600).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) fail("cannot set permissions");
  if (::fsync(fd) != 0) fail("fsync failed");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(path.string() + ": close failed: " + std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(path.string() + ": cannot replace the file: " + std::strerror(err));
  }
}

}  // namespace servescope
