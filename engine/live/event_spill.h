// Where a live scheduler keeps the events of the run it records (`--record`) until it writes the
// run file: on disk, not in memory, so a session of hours holds what is in flight and no more
// (10,000 requests/s are about 90 MiB of events a minute). An append-only file of deflated
// blocks, one per chunk of events the scheduler publishes, in a temporary folder ($TMPDIR, else
// /tmp) and unlinked as soon as it is made, so nothing is left behind however the process ends.
// One per run, however many plans it switches between (a plan's part is a range of it): one
// open file, never one per switch, so a flood of switches cannot run the process out of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

struct z_stream_s;

namespace servescope::engine::live {

class EventSpill {
 public:
  // Throws LiveError when no temporary file can be made.
  EventSpill();
  ~EventSpill();
  EventSpill(const EventSpill&) = delete;
  EventSpill& operator=(const EventSpill&) = delete;

  // Keeps `bytes` as one block. Throws LiveError on a write error (a full disk), naming it.
  void append(std::span<const std::uint8_t> bytes);
  // Each block's bytes, in the order appended, of those stored at [from, to) (offsets as
  // stored_bytes() said when they began and ended; the default is every block). Throws LiveError
  // on a read error.
  void for_each(const std::function<void(std::span<const std::uint8_t>)>& block, std::uint64_t from = 0,
                std::uint64_t to = UINT64_MAX) const;

  std::uint64_t bytes() const { return raw_bytes_; }          // as appended
  std::uint64_t stored_bytes() const { return file_bytes_; }  // on disk

 private:
  int fd_ = -1;
  std::uint64_t raw_bytes_ = 0, file_bytes_ = 0;
  std::vector<std::uint8_t> buffer_;  // reused for compressing
  // One deflate state for every block (each still a zlib stream of its own): made per block, its
  // quarter megabyte was mapped, zeroed and handed back to the system on every publish, which
  // took most of a recording scheduler's CPU.
  std::unique_ptr<z_stream_s, void (*)(z_stream_s*)> deflater_;
};

}  // namespace servescope::engine::live
