// Reading whole files with limits, and writing them so that a crash or a full disk never
// leaves a half-written file behind (write to a temporary file in the same folder, flush,
// rename over the target).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace servescope {

inline constexpr std::size_t kMaxInputFileBytes = 256u << 20;  // 256 MiB

// Throws InputError naming the file when it is missing, unreadable, a directory, or larger
// than `max_bytes`.
std::string read_text_file(const std::filesystem::path& path, std::size_t max_bytes = kMaxInputFileBytes);

// Replaces `path` atomically with `contents`. Throws Error naming the file on failure; the
// previous file, if any, is then left untouched.
void write_file_atomic(const std::filesystem::path& path, std::string_view contents);

// The streaming form, for output too large to hold in memory (per-request logs): write through
// stream(), then commit() to put the file in place. Destroyed without commit(), it removes its
// temporary file and leaves any previous file untouched.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::filesystem::path path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ostream& stream();
  void commit();

 private:
  class Buffer;
  std::filesystem::path path_;
  std::string tmp_;
  int fd_ = -1;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

}  // namespace servescope
