#include "engine/gpuexec/slot_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <sys/wait.h>
#include <thread>

#include "engine/gpu/child_program.h"
#include "engine/gpuexec/slot_loop.h"
#include "engine/live/worker_executor.h"

namespace servescope::engine::gpuexec {

using live::ExecutorFailure;

SlotProcess::SlotProcess(const SlotCommand& command, std::chrono::milliseconds ready_within)
    : ready_by_(std::chrono::steady_clock::now() + ready_within), ready_within_(ready_within) {
  if (command.argv.empty()) throw ExecutorFailure("a slot process needs a program to run");
  name_ = command.argv.front();
  std::array<int, 2> down{}, up{};
  if (::pipe2(down.data(), O_CLOEXEC) != 0 || ::pipe2(up.data(), O_CLOEXEC) != 0)
    throw ExecutorFailure(std::string("cannot make a slot's pipes: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, down[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, up[1], STDOUT_FILENO);
  auto args = command.argv;
  auto env = gpu::environment_with(command.env);
  auto argv = gpu::exec_pointers(args);
  auto envp = gpu::exec_pointers(env);
  const int failed = ::posix_spawn(&pid_, args.front().c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(down[0]);
  ::close(up[1]);
  to_slot_ = down[1];
  from_slot_ = up[0];
  if (failed != 0) {
    ::close(to_slot_);
    ::close(from_slot_);
    throw ExecutorFailure("cannot start the slot program " + name_ + ": " + std::strerror(failed));
  }
  ::fcntl(from_slot_, F_SETFL, ::fcntl(from_slot_, F_GETFL) | O_NONBLOCK);
}

SlotProcess::~SlotProcess() {
  stop();
}

void SlotProcess::stop() {
  if (to_slot_ >= 0) {
    try {
      write_all(to_slot_, encode(SlotStop{}));
    } catch (const std::exception&) {  // already gone
    }
    ::close(to_slot_);
    to_slot_ = -1;
  }
  // A slot in the middle of a long batch finishes it; one that hangs is not waited on forever.
  if (pid_ > 0) {
    int status = 0;
    for (int i = 0; i < 200 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  if (from_slot_ >= 0) ::close(from_slot_);
  from_slot_ = -1;
}

void SlotProcess::send(const SlotMessage& message) {
  try {
    write_all(to_slot_, encode(message));
  } catch (const std::runtime_error& e) {
    gone(e.what());
  }
}

bool SlotProcess::read_available(int timeout_ms) {
  pollfd fd{from_slot_, POLLIN, 0};
  const int ready = ::poll(&fd, 1, timeout_ms);
  if (ready < 0 && errno != EINTR) gone(std::string("poll: ") + std::strerror(errno));
  if (ready <= 0) return true;
  std::vector<std::uint8_t> chunk(1 << 16);
  for (;;) {
    const auto n = ::read(from_slot_, chunk.data(), chunk.size());
    if (n > 0) {
      reader_.feed(std::span(chunk).first(static_cast<std::size_t>(n)));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    if (errno == EAGAIN) return true;
    gone(std::string("reading its pipe: ") + std::strerror(errno));
  }
}

void SlotProcess::gone(const std::string& why) {
  int status = 0;
  std::string end;
  if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
    end = WIFEXITED(status)     ? "; it exited with status " + std::to_string(WEXITSTATUS(status))
          : WIFSIGNALED(status) ? "; it was killed by signal " + std::to_string(WTERMSIG(status))
                                : "";
    pid_ = -1;
  }
  throw ExecutorFailure("slot process " + name_ + ": " + why + end);
}

void SlotProcess::take_messages() {
  while (auto m = reader_.next()) {
    if (const auto* failed = std::get_if<SlotFailed>(&*m)) gone(failed->message);
    if (auto* ready = std::get_if<SlotReady>(&*m)) {
      if (ready_) gone("it said it was ready twice");
      ready_ = std::move(*ready);
      continue;
    }
    if (!ready_) gone("it sent a message before it was ready");
    arrived_.push_back(std::move(*m));
  }
}

bool SlotProcess::poll_ready() {
  if (ready_) return true;
  if (!closed_ && !read_available(0)) closed_ = true;
  take_messages();
  if (ready_) return true;
  if (closed_) gone("it closed its pipe before it was ready");
  if (std::chrono::steady_clock::now() > ready_by_)
    gone("not ready (calibrated) within " + std::to_string(ready_within_.count()) + " ms");
  return false;
}

const SlotReady& SlotProcess::wait_ready() {
  while (!poll_ready()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(ready_by_ - std::chrono::steady_clock::now());
    if (!read_available(static_cast<int>(std::clamp<std::int64_t>(left.count(), 1, 1000)))) closed_ = true;
  }
  return *ready_;
}

const SlotReady& SlotProcess::ready() const {
  if (!ready_) throw ExecutorFailure("slot process " + name_ + " is not ready yet");
  return *ready_;
}

std::vector<SlotMessage> SlotProcess::take_arrived() {
  if (!closed_ && !read_available(0)) closed_ = true;
  take_messages();
  if (closed_ && arrived_.empty()) gone("it closed its pipe");
  std::vector<SlotMessage> out(std::make_move_iterator(arrived_.begin()), std::make_move_iterator(arrived_.end()));
  arrived_.clear();
  return out;
}

SlotMessage SlotProcess::wait_for(const std::function<bool(const SlotMessage&)>& wanted,
                                  std::chrono::milliseconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    take_messages();
    if (const auto it = std::ranges::find_if(arrived_, wanted); it != arrived_.end()) {
      auto found = std::move(*it);
      arrived_.erase(it);
      return found;
    }
    if (closed_) gone("it closed its pipe");
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) gone("no answer within " + std::to_string(within.count()) + " ms");
    if (!read_available(static_cast<int>(std::min<std::int64_t>(left.count(), 1000)))) closed_ = true;
  }
}

namespace {

// A measurement may take minutes (a profile's repeats on a small share), never forever.
constexpr std::chrono::minutes kMeasurementWithin{5};

}  // namespace

gpu::CalibrationCheck SlotProcess::tune(std::int64_t target_ns, double compute_fraction) {
  const auto tag = ++next_tag_;
  send(SlotTune{tag, target_ns, compute_fraction});
  auto answer = wait_for(
      [tag](const SlotMessage& m) {
        const auto* t = std::get_if<SlotTuned>(&m);
        return t && t->tag == tag;
      },
      kMeasurementWithin);
  return std::get<SlotTuned>(answer).check;
}

std::uint64_t SlotProcess::start_timing(const gpu::WorkRecipe& recipe, std::uint32_t repeats) {
  const auto tag = ++next_tag_;
  send(SlotTime{tag, recipe, repeats});
  return tag;
}

SlotTimed SlotProcess::timed(std::uint64_t tag) {
  auto answer = wait_for(
      [tag](const SlotMessage& m) {
        const auto* t = std::get_if<SlotTimed>(&m);
        return t && t->tag == tag;
      },
      kMeasurementWithin);
  return std::get<SlotTimed>(std::move(answer));
}

}  // namespace servescope::engine::gpuexec
