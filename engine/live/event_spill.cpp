#include "engine/live/event_spill.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/live/byte_codec.h"
#include "engine/live/tcp_socket.h"

namespace servescope::engine::live {
namespace {

constexpr std::size_t kBlockHeaderBytes = 8;  // u32 raw size, u32 deflated size

[[noreturn]] void fail(const std::string& what, int error) {
  throw LiveError("the run's recording: " + what + ": " + std::strerror(error));
}

void end_deflater(z_stream* z) {
  deflateEnd(z);
  delete z;
}

// Level 1: the scheduler compresses on its dispatch thread, so speed before size.
std::unique_ptr<z_stream, void (*)(z_stream*)> make_deflater() {
  auto* z = new z_stream{};
  if (deflateInit(z, 1) != Z_OK) {
    delete z;
    throw LiveError("the run's recording: cannot start deflating (out of memory)");
  }
  return {z, end_deflater};
}

}  // namespace

EventSpill::EventSpill() : deflater_(make_deflater()) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/servescope-record-XXXXXX";
  fd_ = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd_ < 0) fail("cannot make a temporary file in " + path.substr(0, path.rfind('/')), errno);
  ::unlink(path.c_str());
}

EventSpill::~EventSpill() {
  if (fd_ >= 0) ::close(fd_);
}

void EventSpill::append(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return;
  if (bytes.size() > UINT32_MAX / 2) throw LiveError("the run's recording: a chunk of events over 2 GiB");
  auto& z = *deflater_;
  const auto bound = deflateBound(&z, static_cast<uLong>(bytes.size()));
  buffer_.resize(kBlockHeaderBytes + bound);
  z.next_in = const_cast<Bytef*>(bytes.data());
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = buffer_.data() + kBlockHeaderBytes;
  z.avail_out = static_cast<uInt>(bound);
  const int rc = deflate(&z, Z_FINISH);
  const auto stored = static_cast<std::size_t>(z.total_out);
  deflateReset(&z);
  if (rc != Z_STREAM_END) throw LiveError("the run's recording: deflate failed");
  std::vector<std::uint8_t> header;
  ByteWriter w(header);
  w.u32(static_cast<std::uint32_t>(bytes.size()));
  w.u32(static_cast<std::uint32_t>(stored));
  std::copy(header.begin(), header.end(), buffer_.begin());
  const std::size_t total = kBlockHeaderBytes + stored;
  for (std::size_t done = 0; done < total;) {
    const auto n = ::pwrite(fd_, buffer_.data() + done, total - done, static_cast<off_t>(file_bytes_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write its temporary file", n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
  file_bytes_ += total;
  raw_bytes_ += bytes.size();
}

void EventSpill::for_each(const std::function<void(std::span<const std::uint8_t>)>& block, std::uint64_t from,
                          std::uint64_t to) const {
  std::vector<std::uint8_t> stored, raw;
  const auto read_at = [this](std::uint8_t* into, std::size_t size, std::uint64_t at) {
    for (std::size_t done = 0; done < size;) {
      const auto n = ::pread(fd_, into + done, size - done, static_cast<off_t>(at + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("cannot read its temporary file back", n < 0 ? errno : EIO);
      done += static_cast<std::size_t>(n);
    }
  };
  to = std::min(to, file_bytes_);
  for (std::uint64_t at = from; at < to;) {
    std::uint8_t header[kBlockHeaderBytes];
    read_at(header, kBlockHeaderBytes, at);
    ByteReader r(header, "the run's recording");
    const auto raw_size = r.u32("block size"), stored_size = r.u32("deflated size");
    stored.resize(stored_size);
    read_at(stored.data(), stored_size, at + kBlockHeaderBytes);
    raw.resize(raw_size);
    uLongf got = raw_size;
    if (uncompress(raw.data(), &got, stored.data(), stored_size) != Z_OK || got != raw_size)
      throw LiveError("the run's recording: a block of its temporary file does not inflate");
    block(raw);
    at += kBlockHeaderBytes + stored_size;
  }
}

}  // namespace servescope::engine::live
