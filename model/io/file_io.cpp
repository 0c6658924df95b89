#include "model/io/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sys/stat.h>
#include <vector>

#include "model/core/error.h"
#include "model/core/text.h"

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

namespace {

// Writes all of `data` to `fd`, retrying short writes; false with errno set on failure.
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

// A put area over the output's descriptor; a failed write sets `error` and makes the
// stream bad, and commit() reports it with the file's name.
class OutputFile::Buffer final : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), data_(1 << 16) { setp(data_.data(), data_.data() + data_.size()); }
  int error = 0;

 protected:
  int_type overflow(int_type ch) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override {
    const auto size = static_cast<std::size_t>(pptr() - pbase());
    if (size > 0 && !write_all(fd_, pbase(), size)) {
      error = errno;
      return -1;
    }
    setp(data_.data(), data_.data() + data_.size());
    return 0;
  }

 private:
  int fd_;
  std::vector<char> data_;
};

namespace {

// A path that names one of this process's open descriptors: "-" and /dev/stdout are standard
// output, /dev/stderr, /dev/fd/N and /proc/self/fd/N their descriptors. They are written through
// the descriptor itself: opening /dev/stdout anew (or renaming over what it points at) would
// start at offset 0 of a redirected file, or fail on a pipe.
std::optional<int> inherited_descriptor(const fs::path& path) {
  const std::string p = path.string();
  if (p == "-" || p == "/dev/stdout") return STDOUT_FILENO;
  if (p == "/dev/stderr") return STDERR_FILENO;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"})
    if (p.starts_with(prefix))
      if (const auto n = parse_integer(std::string_view(p).substr(prefix.size())); n && *n >= 0 && *n < 1 << 20)
        return static_cast<int>(*n);
  return std::nullopt;
}

// The type of what `path` names once the kernel has followed its links (0 when nothing).
mode_t followed_type(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & S_IFMT;
}

// Follows `path` through any symlinks (at most 40, as the kernel does) to the name that is
// replaced: a dangling link's target is created, the link stays.
fs::path resolve_symlinks(const fs::path& path) {
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec)) || ec) return p;
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) throw Error(path.string() + ": cannot read the symlink " + p.string() + ": " + ec.message());
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
  throw Error(path.string() + ": too many levels of symbolic links");
}

fs::path folder_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

// The existing file's type (0 when there is none).
mode_t file_type(const fs::path& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return 0;
  return st.st_mode & S_IFMT;
}

}  // namespace

OutputFile::OutputFile(fs::path path) : path_(std::move(path)) {
  if (const auto fd = inherited_descriptor(path_)) {
    mode_ = Mode::Inherited;
    std::fflush(nullptr);  // what was printed before comes first
    if (::fcntl(*fd, F_GETFL) < 0) throw Error(name() + ": not an open descriptor: " + std::strerror(errno));
    fd_ = *fd;
  } else if (const mode_t type = followed_type(path_); type != 0 && type != S_IFREG && type != S_IFDIR) {
    // A device, FIFO or socket: write into it as it is (a FIFO's open waits for its reader).
    mode_ = Mode::Direct;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(path_.string() + ": cannot open for writing: " + std::strerror(errno));
  } else {
    target_ = resolve_symlinks(path_);
    if (file_type(target_) == S_IFDIR) throw Error(path_.string() + ": is a directory");
    const fs::path dir = folder_of(target_);
    std::string tmpl = (dir / ("." + target_.filename().string() + ".tmp-XXXXXX")).string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    fd_ = ::mkstemp(buf.data());
    if (fd_ < 0)
      throw Error(path_.string() + ": cannot create a temporary file in " + dir.string() + ": " + std::strerror(errno));
    tmp_ = buf.data();
  }
  buffer_ = std::make_unique<Buffer>(fd_);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

OutputFile::~OutputFile() {
  if (fd_ < 0 || mode_ == Mode::Inherited) return;
  ::close(fd_);
  if (mode_ == Mode::Atomic) ::unlink(tmp_.c_str());
}

std::ostream& OutputFile::stream() {
  return *stream_;
}

std::string OutputFile::name() const {
  return path_ == "-" ? std::string("standard output") : path_.string();
}

void OutputFile::fail(const std::string& what, int err) {
  if (fd_ >= 0 && mode_ != Mode::Inherited) ::close(fd_);
  fd_ = -1;
  if (mode_ == Mode::Atomic) ::unlink(tmp_.c_str());
  throw Error(name() + ": " + what + ": " + std::strerror(err));
}

void OutputFile::commit() {
  if (fd_ < 0) throw Error(path_.string() + ": already committed");
  stream_->flush();
  if (buffer_->error != 0 || !*stream_) fail("write failed", buffer_->error != 0 ? buffer_->error : EIO);
  if (mode_ == Mode::Inherited) {
    fd_ = -1;
    return;
  }
  if (mode_ == Mode::Atomic) {
    // An existing file keeps its permissions; a new one gets what a plain create would (mkstemp
    // makes 0600).
    struct stat old {};
    mode_t mode = 0;
    if (::stat(target_.c_str(), &old) == 0) {
      mode = old.st_mode & 07777;
    } else {
      const mode_t mask = ::umask(0);
      ::umask(mask);
      mode = 0666 & ~mask;
    }
    if (::fchmod(fd_, mode) != 0) fail("cannot set permissions", errno);
    if (::fsync(fd_) != 0) fail("fsync failed", errno);
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    if (mode_ == Mode::Atomic) ::unlink(tmp_.c_str());
    throw Error(path_.string() + ": close failed: " + std::strerror(err));
  }
  if (mode_ == Mode::Atomic && ::rename(tmp_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    throw Error(path_.string() + ": cannot replace the file: " + std::strerror(err));
  }
}

void write_output_file(const fs::path& path, std::string_view contents) {
  OutputFile file(path);
  file.stream().write(contents.data(), static_cast<std::streamsize>(contents.size()));
  file.commit();
}

bool names_standard_output(const fs::path& path) {
  return inherited_descriptor(path) == STDOUT_FILENO;
}

void check_output_path(const fs::path& path) {
  if (const auto fd = inherited_descriptor(path)) {
    if (::fcntl(*fd, F_GETFL) < 0) throw Error(path.string() + ": not an open descriptor: " + std::strerror(errno));
    return;
  }
  if (const mode_t type = followed_type(path); type != 0 && type != S_IFREG && type != S_IFDIR) {
    if (::access(path.c_str(), W_OK) != 0) throw Error(path.string() + ": not writable: " + std::strerror(errno));
    return;
  }
  const fs::path target = resolve_symlinks(path);
  if (file_type(target) == S_IFDIR) throw Error(path.string() + ": is a directory");
  const fs::path dir = folder_of(target);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(path.string() + ": no such folder: " + dir.string());
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(path.string() + ": cannot write in the folder " + dir.string() + ": " + std::strerror(errno));
}

}  // namespace servescope
