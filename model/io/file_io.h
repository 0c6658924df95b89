// Reading whole files with limits, and writing them so that a crash or a full disk never
// leaves a half-written file behind (write to a temporary file in the same folder, flush,
// rename over the target).
#pragma once

#include <cstddef>
#include <filesystem>
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

}  // namespace servescope
