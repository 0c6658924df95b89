#include "engine/gpuexec/slot_loop.h"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <map>
#include <stdexcept>

#include "engine/gpuexec/slot_protocol.h"

namespace servescope::engine::gpuexec {

// A pipe whose reader is gone raises SIGPIPE, which would end the worker (or the slot) without a
// word. It is blocked for this thread while writing; one raised is taken back before unblocking,
// and the write's EPIPE becomes the error that says which pipe.
void write_all(int fd, std::span<const std::uint8_t> bytes) {
  sigset_t pipe_signal, before;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &before);
  int error = 0;
  while (!bytes.empty()) {
    const auto n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
  if (error == EPIPE && !sigismember(&before, SIGPIPE)) {
    const timespec now{0, 0};
    while (sigtimedwait(&pipe_signal, nullptr, &now) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (error != 0) throw std::runtime_error(std::string("writing to a slot pipe: ") + std::strerror(error));
}

std::size_t read_some(int fd, std::span<std::uint8_t> into) {
  for (;;) {
    const auto n = ::read(fd, into.data(), into.size());
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR && errno != EAGAIN)
      throw std::runtime_error(std::string("reading a slot pipe: ") + std::strerror(errno));
    if (errno == EAGAIN) return 0;
  }
}

namespace {

class Loop {
 public:
  Loop(SlotDevice& device, int in_fd, int out_fd, const SlotLoopOptions& options)
      : device_(device), in_(in_fd), out_(out_fd), options_(options) {}

  int run() {
    try {
      auto calibration = gpu::WorkCalibration::measure(device_, options_.calibration);
      calibration_ = &calibration;
      send(SlotReady{device_.describe(), calibration.gemm(), calibration.stream(), device_.gemm_l2_bytes(),
                     device_.l2_bytes_per_ns()});
      std::vector<std::uint8_t> chunk(1 << 16);
      for (;;) {
        while (auto message = reader_.next()) {
          if (std::holds_alternative<SlotStop>(*message)) return 0;
          handle(*message);
        }
        const auto n = read_some(in_, chunk);
        if (n == 0) return 0;  // the worker is gone
        reader_.feed(std::span(chunk).first(n));
      }
    } catch (const std::exception& e) {
      return fail_slot(out_, e.what());
    }
  }

 private:
  void handle(const SlotMessage& message) {
    if (const auto* run = std::get_if<SlotRun>(&message)) {
      SlotDone done;
      done.batch = run->batch;
      if (!run->input.empty()) done.copy_ns = device_.upload(run->input);
      auto& tuner = tuner_for(run->target_ns, run->compute_fraction);
      done.recipe = tuner.recipe();
      done.run_ns = device_.run_ns(done.recipe);
      if (!tuner.settled()) tuner.observe(done.run_ns);
      if (run->output_bytes > 0) {
        if (run->output_bytes > kMaxSlotFrameBytes / 2)
          throw std::runtime_error("a batch output of " + std::to_string(run->output_bytes) + " bytes");
        done.output.resize(run->output_bytes);
        done.copy_ns += device_.download(run->batch, done.output);
      }
      send(done);
    } else if (const auto* tune = std::get_if<SlotTune>(&message)) {
      send(SlotTuned{tune->tag, calibration_->tune(device_, tune->target_ns, tune->compute_fraction)});
    } else if (const auto* time = std::get_if<SlotTime>(&message)) {
      SlotTimed timed{time->tag, {}};
      timed.runs.reserve(time->repeats);
      for (std::uint32_t i = 0; i < time->repeats; ++i) {
        TimedRun one;
        one.start_ns = monotonic_ns();
        one.device_ns = device_.run_ns(time->recipe);
        one.end_ns = monotonic_ns();
        timed.runs.push_back(one);
      }
      send(timed);
    } else {
      throw std::runtime_error("a slot was sent a message only slots send");
    }
  }

  // Each distinct (target, fraction) is tuned on the batches that ask for it: the first runs the
  // calibration lines' estimate, the next ones the rescaled recipe, until within tolerance.
  gpu::TargetTuner& tuner_for(std::int64_t target_ns, double fraction) {
    const auto key = gpu::tuning_key(target_ns, fraction);
    auto it = tuners_.find(key);
    if (it == tuners_.end()) {
      if (tuners_.size() >= options_.calibration.max_cached) tuners_.erase(tuners_.begin());
      it = tuners_.emplace(key, gpu::TargetTuner(*calibration_, target_ns, fraction)).first;
    }
    return it->second;
  }

  void send(const SlotMessage& message) { write_all(out_, encode(message)); }
  static std::int64_t monotonic_ns() {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
  }

  SlotDevice& device_;
  int in_, out_;
  SlotLoopOptions options_;
  SlotFrameReader reader_;
  gpu::WorkCalibration* calibration_ = nullptr;
  std::map<gpu::TuningKey, gpu::TargetTuner> tuners_;
};

}  // namespace

int fail_slot(int out_fd, const std::string& why) {
  try {
    write_all(out_fd, encode(SlotFailed{why}));
  } catch (const std::exception&) {  // the worker is gone: nobody to tell
  }
  return 1;
}

int run_slot_loop(SlotDevice& device, int in_fd, int out_fd, const SlotLoopOptions& options) {
  return Loop(device, in_fd, out_fd, options).run();
}

}  // namespace servescope::engine::gpuexec
