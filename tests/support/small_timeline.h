// A hand-made timeline for tests of the timeline readers and writers.
#pragma once

#include "engine/timeline/timeline_data.h"

namespace servescope::test {

// Two half-GPU slots of one server, three batches with their four requests, a transfer, queue
// samples and a drop: every list a timeline file holds, small enough to break by hand.
inline engine::TimelineData small_timeline() {
  const auto us = [](std::int64_t n) { return Duration::microseconds(n); };
  engine::TimelineData t;
  t.system = "symphony";
  t.gpus = {"gpu0/v0", "gpu0/v1"};
  t.gpu_types = {"A100", "A100"};
  t.gpu_shares = {"1/2", "1/2"};
  t.gpu_physical = {0, 0};
  t.physical_names = {"gpu0"};
  t.gpu_duty_cycle = {us(500), us(0)};
  t.gpu_server = {0, 0};
  t.server_names = {"server0"};
  t.models = {"resnet50"};
  t.model_slo = {us(50'000)};
  t.spans = {{1, 0, 0, 2, us(10), us(20), false, 0, 100, us(0), us(0), 0},
             {2, 1, 0, 1, us(15), us(30), false, 1, 102, us(0), us(0), 2},
             {3, 0, 0, 1, us(25), us(40), false, 0, 103, us(0), us(0), 3}};
  t.requests = {{100, us(5), us(50)}, {101, us(6), us(50)}, {102, us(7), us(20)}, {103, us(8), us(60)}};
  t.transfers = {{0, 1, 0, 1, 4096, us(20), us(22)}};
  t.queue = {{us(5), 0, 1}, {us(10), 0, 0}};
  t.drops = {{us(12), 0, engine::DropReason::DeadlineUnreachable, 104, us(9), us(11)}};
  t.end = us(40);
  return t;
}

}  // namespace servescope::test
