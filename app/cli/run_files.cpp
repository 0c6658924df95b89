#include "app/cli/run_files.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <random>

#include "model/io/file_io.h"

namespace servescope::cli {
namespace fs = std::filesystem;
namespace {

std::string random_id() {
  std::random_device device;
  std::array<char, 33> hex{};
  for (int word = 0; word < 4; ++word)
    std::snprintf(hex.data() + std::ptrdiff_t{8} * word, 9, "%08x", static_cast<unsigned>(device()));
  return hex.data();
}

// A companion as a reader of the run file finds it: relative to the run file's folder, so the set
// can be moved as one; standard output, a device or a descriptor as given.
std::string path_from(const std::string& run_file, const std::string& companion) {
  const auto outside = [](const std::string& p) {
    return p == "-" || p.starts_with("/dev/") || p.starts_with("/proc/");
  };
  if (run_file.empty() || outside(run_file) || outside(companion)) return companion;
  const fs::path folder = fs::absolute(run_file).parent_path().lexically_normal();
  return fs::absolute(companion).lexically_normal().lexically_relative(folder).generic_string();
}

}  // namespace

RunFiles::RunFiles(std::string run_file) : run_file_(std::move(run_file)), id_(random_id()) {}

void RunFiles::add(std::string kind, const std::string& path, std::uint64_t bytes) {
  companions_.push_back({std::move(kind), path_from(run_file_, path), bytes});
}

void RunFiles::write_json(std::string kind, const std::string& path, nlohmann::json json) {
  json["run_id"] = id_;
  OutputFile file(path);
  file.stream() << std::setw(2) << json << "\n";  // streamed: a timeline can be hundreds of MB
  file.commit();
  add(std::move(kind), path, file.bytes_written());
}

void RunFiles::describe(nlohmann::json& run) const {
  run["run_id"] = id_;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : companions_)
    list.push_back({{"kind", c.kind}, {"path", c.path}, {"bytes", c.bytes}});
  run["companions"] = std::move(list);
}

}  // namespace servescope::cli
