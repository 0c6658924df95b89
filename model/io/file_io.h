// Reading whole files with limits, and writing output so that a crash, a signal or a full disk
// never leaves a half-written file behind, while devices, FIFOs and standard output are written
// as what they are (docs/formats.md "Files from elsewhere", docs/architecture.md
// "Files are written through one writer").
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace servescope {

inline constexpr std::size_t kMaxInputFileBytes = 256u << 20;  // 256 MiB

// Throws InputError naming the file when it is missing, unreadable, larger than `max_bytes`, or
// not a regular file: a device (/dev/zero), a FIFO or a terminal (/dev/stdin) is refused rather
// than read without end or waited on.
std::string read_text_file(const std::filesystem::path& path, std::size_t max_bytes = kMaxInputFileBytes);

// The one way ServeScope writes an output file (a CLI --out, a GUI save or export):
//  - "-" is standard output, and /dev/stdout, /dev/stderr, /dev/fd/N are written through the
//    process's own descriptor (never reopened, never renamed over);
//  - a path that exists and is not a regular file (a character device such as /dev/null, a FIFO,
//    a socket) is written directly, never renamed over;
//  - anything else, a regular file or a path that does not exist yet, is replaced atomically: a
//    temporary file in the same folder, fsync, rename. A symlink is followed, so the link stays and
//    its target is replaced.
// Every failure (ENOSPC, EIO, a read-only folder) throws Error naming the path and the reason;
// the previous file, if any, is then left whole.
// The temporary is `.NAME.tmp-PID-XXXXXX` beside the file. While it exists it is listed in a
// process-wide registry, so a process that ends without unwinding its stack (servescope-cli on a
// signal) can still remove it (remove_output_temporaries). One that ends with SIGKILL cannot; its
// temporaries are removed by the next OutputFile that creates one in that folder
// (sweep_stale_temporaries).
// Who may read a file written anew: what a plain create gives (the umask decides), or only its
// owner (a private key: 0600, whatever the file had before).
enum class FileAccess { Default, OwnerOnly };

class OutputFile {
 public:
  explicit OutputFile(std::filesystem::path path, FileAccess access = FileAccess::Default);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Where to write. Nothing is in place until commit().
  std::ostream& stream();
  // Puts the file in place (or flushes the device); throws Error on any failure. Destroyed
  // without commit(), a temporary file is removed and any previous file left untouched.
  void commit();
  // Bytes written so far (after commit(): the size of what was put in place).
  std::uint64_t bytes_written() const;

 private:
  enum class Mode { Atomic, Direct, Inherited };  // Inherited: "-", /dev/stdout, /dev/fd/N
  class Buffer;
  std::string name() const;
  [[noreturn]] void fail(const std::string& what, int err);
  std::filesystem::path path_;    // as given, for messages
  std::filesystem::path target_;  // symlinks resolved
  Mode mode_ = Mode::Atomic;
  FileAccess access_ = FileAccess::Default;
  std::string tmp_;
  int fd_ = -1;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

// OutputFile in one call.
void write_output_file(const std::filesystem::path& path, std::string_view contents,
                       FileAccess access = FileAccess::Default);

// True for "-" and the other names of this process's standard output (/dev/stdout, /dev/fd/1).
bool names_standard_output(const std::filesystem::path& path);

// Checks, before long work, that `path` can be written as OutputFile would: throws Error naming
// the path when its folder is missing or not writable, or it is a directory.
void check_output_path(const std::filesystem::path& path);

// Throws QueryError when two of `paths` would write one file: the same name, a symlink to the
// other (resolved as OutputFile resolves it, a dangling one too), a hard link, or another path to
// the same folder. The second write would replace the first, and a run file's `companions` would
// name bytes that are gone. Standard output and devices are left to check_outputs and the
// writer: two outputs to /dev/null lose nothing.
void check_distinct_outputs(const std::vector<std::filesystem::path>& paths);

// The temporary files this process's OutputFiles hold now, none committed yet.
std::vector<std::filesystem::path> output_temporaries();

// Removes every temporary file in output_temporaries(), for a process about to end without
// running destructors (servescope-cli after SIGINT or SIGTERM). Any thread may call it; an
// OutputFile whose temporary it removed fails its commit().
void remove_output_temporaries() noexcept;

// Removes from `folder` the temporaries of OutputFiles whose process is gone: regular files owned
// by this user named `.NAME.tmp-PID-XXXXXX` whose PID is no live process, and
// `.NAME.tmp-XXXXXX` (the naming before PIDs) older than an hour. Nothing else is touched: no other
// names, no symlinks (never followed), no other user's files, no live process's temporaries.
// Best effort: an unreadable folder removes nothing. Returns how many files it removed.
std::size_t sweep_stale_temporaries(const std::filesystem::path& folder);

}  // namespace servescope
