// A child process for end-to-end tests of the live daemons: started with posix_spawn, its
// stdout and stderr in files the test can read while it runs, stopped with a signal or waited
// for with a bound. The destructor kills what is still running, so a failed assertion never
// leaves a daemon behind.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <vector>

#include "tests/support/test_support.h"

extern char** environ;

namespace servescope::test {

class ChildProcess {
 public:
  ChildProcess(const std::string& program, const std::vector<std::string>& args, const std::filesystem::path& out,
               const std::filesystem::path& err)
      : out_(out), err_(err) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
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
    if (rc != 0) throw std::runtime_error("cannot start " + program);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (running()) {
      ::kill(pid_, SIGKILL);
      wait_for(std::chrono::seconds(5));
    }
  }

  void signal(int sig) const { ::kill(pid_, sig); }
  bool running() const { return !status_; }
  // The exit status (128 + signal when killed), or nullopt when it did not end within `limit`.
  std::optional<int> wait_for(std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!status_) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      if (std::chrono::steady_clock::now() > until) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return status_;
  }
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
  std::optional<int> status_;
  std::filesystem::path out_, err_;
};

}  // namespace servescope::test
