#include "model/io/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <mutex>
#include <optional>
#include <sys/stat.h>
#include <vector>

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope {
namespace fs = std::filesystem;

namespace {

std::string_view file_type_name(mode_t type) {
  switch (type) {
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFIFO:
      return "a FIFO (named pipe)";
    case S_IFSOCK:
      return "a socket";
    case S_IFDIR:
      return "a directory";
    default:
      return "not a regular file";
  }
}

}  // namespace

std::string read_text_file(const fs::path& path, std::size_t max_bytes) {
  const std::string name = path.string();
  // O_NONBLOCK so that opening a FIFO without a writer returns at once instead of waiting; the
  // type is checked on the open descriptor, so a path swapped after a stat cannot slip through.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) throw InputError(name, "", "no such file");
    throw InputError(name, "", std::string("cannot open: ") + std::strerror(err));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError(name, "", std::string("cannot read: ") + std::strerror(errno));
  if (const mode_t type = st.st_mode & S_IFMT; type != S_IFREG)
    throw InputError(name, "",
                     "is " + std::string(file_type_name(type)) +
                         ", not a regular file; ServeScope reads its inputs "
                         "from regular files only");
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > max_bytes)
    throw InputError(
        name, "", "file is " + std::to_string(size) + " bytes; the limit is " + std::to_string(max_bytes) + " bytes");
  // Reads what fstat promised, then looks for more: a file that grows while it is read is read
  // to its end, up to one byte past the limit, without doubling the buffer for a file that did not.
  std::string data(size, '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == data.size()) {
      char probe[4096];
      const ssize_t n = ::read(fd, probe, sizeof probe);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(name, "", std::string("read error: ") + std::strerror(errno));
      if (n == 0) break;
      data.append(probe, static_cast<std::size_t>(n));
      got += static_cast<std::size_t>(n);
      if (got > max_bytes)
        throw InputError(name, "", "file grew past the limit of " + std::to_string(max_bytes) + " bytes while read");
      continue;
    }
    const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(name, "", std::string("read error: ") + std::strerror(errno));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  data.resize(got);
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

// The live temporaries of this process. Creating, renaming and removing one happen under the
// lock, so remove_output_temporaries() never misses a temporary that exists nor removes a file
// already put in place. Never destroyed: the thread that ends the process on a signal may use it
// while exit() runs static destructors.
struct TemporaryRegistry {
  std::mutex mutex;
  std::vector<std::string> paths;

  void forget(const std::string& path) { std::erase(paths, path); }
};

TemporaryRegistry& temporaries() {
  static auto* registry = new TemporaryRegistry;
  return *registry;
}

// mkstemp(template) and its registration; the descriptor, or -1 with errno set.
int create_temporary(std::string& path_template) {
  auto& registry = temporaries();
  const std::lock_guard lock(registry.mutex);
  const int fd = ::mkstemp(path_template.data());
  if (fd >= 0) registry.paths.push_back(path_template);
  return fd;
}

// rename(tmp, target) and the temporary's deregistration; false with errno set on failure.
bool rename_temporary(const std::string& tmp, const fs::path& target) {
  auto& registry = temporaries();
  const std::lock_guard lock(registry.mutex);
  if (::rename(tmp.c_str(), target.c_str()) != 0) return false;
  registry.forget(tmp);
  return true;
}

void remove_temporary(const std::string& tmp) noexcept {
  auto& registry = temporaries();
  const std::lock_guard lock(registry.mutex);
  ::unlink(tmp.c_str());
  registry.forget(tmp);
}

// How sweep_stale_temporaries() reads a folder entry's name.
struct TemporaryName {
  enum class Kind { NotOurs, WithPid, BeforePids } kind = Kind::NotOurs;
  pid_t pid = 0;
};

// mkstemp's six characters (glibc draws them from [A-Za-z0-9]).
bool is_mkstemp_suffix(std::string_view s) {
  return s.size() == 6 && std::ranges::all_of(s, [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

// `.NAME.tmp-PID-XXXXXX` or `.NAME.tmp-XXXXXX`, NAME not empty.
TemporaryName parse_temporary_name(std::string_view name) {
  constexpr std::string_view kMark = ".tmp-";
  const auto at = name.rfind(kMark);
  if (!name.starts_with('.') || at == std::string_view::npos || at < 2) return {};
  const std::string_view rest = name.substr(at + kMark.size());
  if (is_mkstemp_suffix(rest)) return {TemporaryName::Kind::BeforePids, 0};
  const auto dash = rest.find('-');
  if (dash == std::string_view::npos || dash == 0 || !is_mkstemp_suffix(rest.substr(dash + 1))) return {};
  const std::string_view digits = rest.substr(0, dash);
  if (!std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; })) return {};
  const auto pid = parse_integer(digits);
  // pid 0 or a negative one would make kill() signal a process group: such a name is not ours.
  if (!pid || *pid <= 0 || *pid > std::numeric_limits<pid_t>::max()) return {};
  return {TemporaryName::Kind::WithPid, static_cast<pid_t>(*pid)};
}

bool process_is_gone(pid_t pid) {
  return pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
}

// A temporary of the naming before PIDs is taken for abandoned after this long: no process
// writes one for an hour without its file's time changing.
constexpr std::time_t kAbandonedAfterSeconds = 3600;

// The file name part of a temporary: NAME cut so that `.NAME.tmp-PID-XXXXXX` stays within
// NAME_MAX (a long NAME would otherwise make mkstemp fail with ENAMETOOLONG).
std::string temporary_stem(const fs::path& target) {
  std::string name = target.filename().string();
  if (name.size() > 200) name.resize(200);
  return "." + name + ".tmp-" + std::to_string(::getpid()) + "-XXXXXX";
}

}  // namespace

// A put area over the output's descriptor; a failed write sets `error` and makes the
// stream bad, and commit() reports it with the file's name.
class OutputFile::Buffer final : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), data_(1 << 16) { setp(data_.data(), data_.data() + data_.size()); }
  int error = 0;
  std::uint64_t written = 0;

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
    written += size;
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

OutputFile::OutputFile(fs::path path, FileAccess access) : path_(std::move(path)), access_(access) {
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
    sweep_stale_temporaries(dir);
    tmp_ = (dir / temporary_stem(target_)).string();
    fd_ = create_temporary(tmp_);
    if (fd_ < 0)
      throw Error(path_.string() + ": cannot create a temporary file in " + dir.string() + ": " + std::strerror(errno));
  }
  buffer_ = std::make_unique<Buffer>(fd_);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

OutputFile::~OutputFile() {
  if (fd_ < 0 || mode_ == Mode::Inherited) return;
  ::close(fd_);
  if (mode_ == Mode::Atomic) remove_temporary(tmp_);
}

std::ostream& OutputFile::stream() {
  return *stream_;
}

std::uint64_t OutputFile::bytes_written() const {
  return buffer_->written;
}

std::string OutputFile::name() const {
  return path_ == "-" ? std::string("standard output") : path_.string();
}

void OutputFile::fail(const std::string& what, int err) {
  if (fd_ >= 0 && mode_ != Mode::Inherited) ::close(fd_);
  fd_ = -1;
  if (mode_ == Mode::Atomic) remove_temporary(tmp_);
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
    // makes 0600). A private file is its owner's alone either way.
    struct stat old {};
    mode_t mode = 0;
    if (access_ == FileAccess::OwnerOnly) {
      mode = 0600;
    } else if (::stat(target_.c_str(), &old) == 0) {
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
    if (mode_ == Mode::Atomic) remove_temporary(tmp_);
    throw Error(path_.string() + ": close failed: " + std::strerror(err));
  }
  if (mode_ == Mode::Atomic && !rename_temporary(tmp_, target_)) {
    const int err = errno;
    remove_temporary(tmp_);
    throw Error(path_.string() + ": cannot replace the file: " + std::strerror(err));
  }
}

void write_output_file(const fs::path& path, std::string_view contents, FileAccess access) {
  OutputFile file(path, access);
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

void check_distinct_outputs(const std::vector<fs::path>& paths) {
  struct Target {
    fs::path given;
    std::string name;            // the resolved file, its folder made canonical
    std::optional<ino_t> inode;  // an existing regular file's
    dev_t device = 0;
  };
  std::vector<Target> targets;
  for (const auto& path : paths) {
    if (path.empty() || inherited_descriptor(path)) continue;
    if (const mode_t type = followed_type(path); type != 0 && type != S_IFREG) continue;  // a device or FIFO
    Target t{path, {}, std::nullopt, 0};
    const fs::path file = resolve_symlinks(path);
    std::error_code ec;
    const auto folder = fs::weakly_canonical(fs::absolute(folder_of(file), ec), ec);
    t.name = (folder / file.filename()).lexically_normal().string();
    struct stat st {};
    if (::stat(file.c_str(), &st) == 0) {
      t.inode = st.st_ino;
      t.device = st.st_dev;
    }
    for (const auto& other : targets)
      if (other.name == t.name || (t.inode && other.inode == t.inode && other.device == t.device))
        throw QueryError("two outputs would write one file: '" + other.given.string() + "' and '" + path.string() +
                         "'" + (other.given == path ? "" : " (through a link)") +
                         "; give each output a file of its own");
    targets.push_back(std::move(t));
  }
}

std::vector<fs::path> output_temporaries() {
  auto& registry = temporaries();
  const std::lock_guard lock(registry.mutex);
  return {registry.paths.begin(), registry.paths.end()};
}

void remove_output_temporaries() noexcept {
  auto& registry = temporaries();
  const std::lock_guard lock(registry.mutex);
  for (const auto& tmp : registry.paths)
    ::unlink(tmp.c_str());
  registry.paths.clear();
}

std::size_t sweep_stale_temporaries(const fs::path& folder) {
  const int dir_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return 0;
  DIR* dir = ::fdopendir(dir_fd);
  if (!dir) {
    ::close(dir_fd);
    return 0;
  }
  const uid_t me = ::geteuid();
  const std::time_t now = std::time(nullptr);
  std::size_t removed = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const TemporaryName parsed = parse_temporary_name(entry->d_name);
    if (parsed.kind == TemporaryName::Kind::NotOurs) continue;
    // lstat's view: a symlink is a symlink, never what it points at.
    struct stat st {};
    if (::fstatat(dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_uid != me) continue;
    const bool stale = parsed.kind == TemporaryName::Kind::WithPid ? process_is_gone(parsed.pid)
                                                                   : now - st.st_mtime > kAbandonedAfterSeconds;
    // unlinkat removes the name itself; had it turned into a symlink meanwhile, only the link goes.
    if (stale && ::unlinkat(dir_fd, entry->d_name, 0) == 0) ++removed;
  }
  ::closedir(dir);
  return removed;
}

}  // namespace servescope
