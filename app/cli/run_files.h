// The files of one `simulate` run (-o, --timeline, --requests) as a set a reader can trust: each
// file is replaced atomically on its own, so the set is made consistent by order and by a shared
// id. Companions (the request log, the timeline) are put in place first, the run file last, as
// the set's manifest: it names the run's id and lists every companion with its path and size. The
// timeline carries the same id. A reader that finds a run file beside a companion of another run
// (an older timeline, or a newer one whose run was stopped before its run file) sees the id or the
// size differ (docs/formats.md, "Files of one run").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace servescope::cli {

class RunFiles {
 public:
  // `run_file`: the -o path, or empty when the run file is not written.
  explicit RunFiles(std::string run_file);

  // 32 hex digits, random, the same in every file of the run.
  const std::string& id() const { return id_; }
  // Records a companion once it is in place.
  void add(std::string kind, const std::string& path, std::uint64_t bytes);
  // Writes a JSON companion (the timeline) with the run's id as its `run_id` member.
  void write_json(std::string kind, const std::string& path, nlohmann::json json);
  // `run_id` and `companions` for the run file, which is written after every companion.
  void describe(nlohmann::json& run) const;

 private:
  struct Companion {
    std::string kind, path;
    std::uint64_t bytes = 0;
  };
  std::string run_file_, id_;
  std::vector<Companion> companions_;
};

}  // namespace servescope::cli
