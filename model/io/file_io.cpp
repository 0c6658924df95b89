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

// A put area over the temporary file's descriptor; a failed write sets `error` and makes the
// stream bad, and commit() reports it with the file's name.
class AtomicFileWriter::Buffer final : public std::streambuf {
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

AtomicFileWriter::AtomicFileWriter(fs::path path) : path_(std::move(path)) {
  const fs::path dir = path_.has_parent_path() ? path_.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + path_.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  fd_ = ::mkstemp(buf.data());
  if (fd_ < 0)
    throw Error(path_.string() + ": cannot create a temporary file in " + dir.string() + ": " + std::strerror(errno));
  tmp_ = buf.data();
  buffer_ = std::make_unique<Buffer>(fd_);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

std::ostream& AtomicFileWriter::stream() {
  return *stream_;
}

void AtomicFileWriter::commit() {
  if (fd_ < 0) throw Error(path_.string() + ": already committed");
  auto fail = [&](const std::string& what, int err) {
    ::close(fd_);
    fd_ = -1;
    ::unlink(tmp_.c_str());
    throw Error(path_.string() + ": " + what + ": " + std::strerror(err));
  };
  stream_->flush();
  if (buffer_->error != 0 || !*stream_) fail("write failed", buffer_->error != 0 ? buffer_->error : EIO);
  // Keep the permissions a user would get from a plain create (mkstemp makes 0600).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd_, 0666 & ~mask) != 0) fail("cannot set permissions", errno);
  if (::fsync(fd_) != 0) fail("fsync failed", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    throw Error(path_.string() + ": close failed: " + std::strerror(err));
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    throw Error(path_.string() + ": cannot replace the file: " + std::strerror(err));
  }
}

void write_file_atomic(const fs::path& path, std::string_view contents) {
  AtomicFileWriter file(path);
  file.stream().write(contents.data(), static_cast<std::streamsize>(contents.size()));
  file.commit();
}

}  // namespace servescope
