// A child process for end-to-end tests (the live daemons, servescope-cli under signals and bad
// input): started with posix_spawn, its stdout and stderr in files the test can read while it
// runs, stopped with a signal or waited for with a bound. The destructor kills what is still running, so a failed
// assertion never leaves a daemon behind.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <vector>

#include "tests/support/test_support.h"

extern char** environ;

namespace servescope::test {

class ChildProcess {
 public:
  // Standard input: /dev/null, or a pipe whose writer this object holds open and never writes
  // to (what /dev/stdin is when a user pipes nothing in: a read waits for ever).
  enum class Input { DevNull, IdlePipe };

  ChildProcess(const std::string& program, const std::vector<std::string>& args, const std::filesystem::path& out,
               const std::filesystem::path& err, Input input = Input::DevNull)
      : out_(out), err_(err) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    int pipe_fds[2] = {-1, -1};
    if (input == Input::IdlePipe) {
      if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
      posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], 0);
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    }
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> all{program};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (pipe_fds[0] >= 0) ::close(pipe_fds[0]);
    idle_writer_ = pipe_fds[1];
    if (rc != 0) {
      if (idle_writer_ >= 0) ::close(idle_writer_);
      throw std::runtime_error("cannot start " + program);
    }
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (running()) {
      ::kill(pid_, SIGKILL);
      wait_status(std::chrono::seconds(5));
    }
    if (idle_writer_ >= 0) ::close(idle_writer_);
  }

  pid_t pid() const { return pid_; }
  void signal(int sig) const { ::kill(pid_, sig); }
  bool running() { return !poll(); }
  // The raw wait status (WIFEXITED, WIFSIGNALED…) once it has ended, nullopt while it runs; an
  // exit with 143 and a death by SIGTERM are told apart here.
  std::optional<int> poll() {
    int status = 0;
    if (!raw_status_ && ::wait4(pid_, &status, WNOHANG, &usage_) == pid_) raw_status_ = status;
    return raw_status_;
  }
  // poll() until it ends, or nullopt after `limit`.
  std::optional<int> wait_status(std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    auto nap = std::chrono::milliseconds(1);
    while (!poll()) {
      if (std::chrono::steady_clock::now() > until) return std::nullopt;
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::milliseconds(20));
    }
    return raw_status_;
  }
  // The exit status (128 + signal when killed), or nullopt when it did not end within `limit`.
  std::optional<int> wait_for(std::chrono::milliseconds limit) {
    const auto raw = wait_status(limit);
    if (!raw) return std::nullopt;
    return WIFEXITED(*raw) ? WEXITSTATUS(*raw) : 128 + WTERMSIG(*raw);
  }
  // Its resource use once it has ended (ru_maxrss: its peak memory in KiB).
  const rusage& usage() const { return usage_; }
  std::string out() const { return read_file(out_); }
  std::string err() const { return read_file(err_); }
  // Waits until its stderr holds `text` (at least `count` times); false after `limit`.
  bool wait_for_log(const std::string& text, std::chrono::milliseconds limit, int count = 1) const {
    const auto until = std::chrono::steady_clock::now() + limit;
    for (;;) {
      const auto log = err();
      int seen = 0;
      for (auto at = log.find(text); at != std::string::npos; at = log.find(text, at + 1))
        ++seen;
      if (seen >= count) return true;
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

 private:
  pid_t pid_ = -1;
  int idle_writer_ = -1;
  std::optional<int> raw_status_;
  rusage usage_{};
  std::filesystem::path out_, err_;
};

}  // namespace servescope::test
