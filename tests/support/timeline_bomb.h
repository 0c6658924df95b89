// A packed timeline that deflates to almost nothing and declares 22 million all-zero batches
// (issue 43's bomb: 238 KB of file took 1.75 GB to read). Every reader must refuse it within the
// memory budget of its text (engine/timeline/timeline_packing.h), naming the place.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "model/io/packed_bytes.h"

namespace servescope::test {

// The batches it declares.
inline constexpr std::uint64_t kBombBatches = ((std::uint64_t{192} << 20) - 16) / 9;

// A timeline document (kind "timeline") of one slot and one model whose packed rows are the bomb.
// Built once per process: making it deflates 192 MiB of zeros.
inline const nlohmann::json& packed_timeline_bomb() {
  static const nlohmann::json bomb = [] {
    // Unpacked: no windows, the batch count, the batches' nine zero columns, then no transfers,
    // queue, requests or drops (each count a varint 0: one zero byte).
    VarintWriter head;
    head.varint(0);
    head.varint(kBombBatches);
    std::string raw = head.bytes();
    raw.append(kBombBatches * 9 + 4, '\0');
    return nlohmann::json{
        {"schema_version", 1},
        {"kind", "timeline"},
        {"system", "symphony"},
        {"gpus", {"s0/gpu0"}},
        {"gpu_types", {"A100"}},
        {"gpu_shares", {"1"}},
        {"gpu_physical", {0}},
        {"physical_gpus", {"s0/0"}},
        {"duty_cycle_us", {0.0}},
        {"gpu_server", {0}},
        {"servers", {"s0"}},
        {"models", {"m"}},
        {"model_slo_us", {10000.0}},
        {"packed", {{"encoding", "columns-1+zlib+base64"}, {"bytes", raw.size()}, {"data", pack_bytes(raw)}}}};
  }();
  return bomb;
}

}  // namespace servescope::test
