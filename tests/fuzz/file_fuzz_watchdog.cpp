// file_fuzz's crash handlers and hang watchdog: a signal saves the input at hand before it is handed
// on (to the sanitizers, or the default); an input read for too long (CPU time, or wall time when
// blocked) is saved and the process aborts.
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/fuzz/file_fuzz_support.h"

namespace fs = std::filesystem;

namespace file_fuzz {

// ---------------------------------------------------------------------------------------------
// Crashes and hangs: the input at hand is saved first.

std::mutex g_current_mutex;
const std::string* g_current = nullptr;     // the mutant being read
std::atomic<std::int64_t> g_started_ns{0};  // when its reading began (0: between inputs)
std::array<char, 4096> g_crash_path{};

// The reading thread's CPU clock, and its reading when the input at hand began.
clockid_t g_reader_clock{};
std::atomic<std::int64_t> g_started_cpu_ns{0};

namespace {

struct sigaction g_previous[NSIG];

void save_current_from_signal() {
  if (!g_current) return;
  const int fd = ::open(g_crash_path.data(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const char* p = g_current->data();
  std::size_t left = g_current->size();
  while (left > 0) {
    const auto n = ::write(fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::close(fd);
  const char msg[] = "\nfile_fuzz: a signal while reading an input; it is saved at ";
  (void)!::write(2, msg, sizeof msg - 1);
  (void)!::write(2, g_crash_path.data(), std::strlen(g_crash_path.data()));
  (void)!::write(2, "\n", 1);
}

void on_crash(int sig, siginfo_t*, void*) {
  save_current_from_signal();
  // Hand the signal on (to the sanitizer's handler, or the default): it fires again on return.
  ::sigaction(sig, &g_previous[sig], nullptr);
  if (sig == SIGABRT) ::raise(sig);
}

}  // namespace

void install_crash_handlers() {
  static std::vector<char> alt_stack(1u << 20);
  stack_t ss{};
  ss.ss_sp = alt_stack.data();
  ss.ss_size = alt_stack.size();
  ::sigaltstack(&ss, nullptr);
  for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction sa {};
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, &g_previous[sig]);
  }
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::int64_t cpu_ns(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}
// A hang is `limit` of the reading thread's own CPU time on one input: a loaded machine (ctest
// runs two tests at once, ASan triples the work) stretches the wall clock, not that. A read
// that blocks uses no CPU, so ten times the limit of wall time counts as a hang too.
void watchdog(std::chrono::seconds limit, const fs::path& hang_path, const std::atomic<bool>& done) {
  const auto limit_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(limit).count();
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::lock_guard lock(g_current_mutex);
    const auto started = g_started_ns.load();
    if (started == 0) continue;
    const bool busy = cpu_ns(g_reader_clock) - g_started_cpu_ns.load() >= limit_ns;
    const bool blocked = now_ns() - started >= 10 * limit_ns;
    if (!busy && !blocked) continue;
    if (g_current) std::ofstream(hang_path, std::ios::binary) << *g_current;
    std::cerr << "\nfile_fuzz: HANG: one input has been read for more than "
              << (busy ? std::to_string(limit.count()) + " s of CPU time" : std::to_string(10 * limit.count()) + " s")
              << "; it is saved at " << hang_path << "\n";
    ::signal(SIGABRT, SIG_DFL);
    std::abort();
  }
}

}  // namespace file_fuzz
