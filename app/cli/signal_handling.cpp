#include "app/cli/signal_handling.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <system_error>
#include <thread>

#include "model/core/error.h"
#include "model/io/file_io.h"

namespace servescope::cli {
namespace {

// Long enough for a simulation to notice the request (it looks every 65,000 events) and unwind,
// short enough that a user pressing Ctrl-C is not left waiting.
constexpr std::time_t kGraceSeconds = 2;

// Never destroyed: the signal thread may use them while exit() runs static destructors.
std::stop_source& source() {
  static auto* s = new std::stop_source;
  return *s;
}
std::atomic<int> g_signal{0};
std::atomic<bool> g_listening{false};

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

[[noreturn]] void end_now(int signo) {
  remove_output_temporaries();
  ::_exit(128 + signo);
}

void wait_for_signals() {
  const sigset_t set = stop_signals();
  int signo = 0;
  while (sigwait(&set, &signo) != 0) {
  }
  g_signal.store(signo);
  if (!g_listening.load()) end_now(signo);
  std::fprintf(stderr, "servescope-cli: %s, stopping\n", strsignal(signo));
  source().request_stop();
  // A second signal, or the end of the grace period, ends the process now; the main thread
  // usually exits before either.
  const timespec grace{kGraceSeconds, 0};
  while (sigtimedwait(&set, nullptr, &grace) < 0 && errno == EINTR) {
  }
  end_now(signo);
}

pthread_t g_signal_thread;

// Threads that libraries started before main blocked the signals (LibTorch's, in a build with
// real models) would take a SIGTERM with its default action and end the process at once. Their
// handler hands the signal to the thread that waits for it. pthread_kill is async-signal-safe.
void forward_to_signal_thread(int signo) {
  pthread_kill(g_signal_thread, signo);
}

}  // namespace

void handle_stop_signals() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  try {
    std::thread waiter(wait_for_signals);
    g_signal_thread = waiter.native_handle();
    waiter.detach();
    struct sigaction forward {};
    forward.sa_handler = forward_to_signal_thread;
    sigemptyset(&forward.sa_mask);
    sigaction(SIGINT, &forward, nullptr);
    sigaction(SIGTERM, &forward, nullptr);
  } catch (const std::system_error&) {
    // No thread to take them: the signals keep their default action (the process ends at once,
    // leaving its temporaries to the next sweep) rather than being blocked for good.
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  }
}

std::stop_token stop_token() {
  g_listening.store(true);
  return source().get_token();
}

void throw_if_stopped() {
  if (source().stop_requested()) throw Cancelled("stopped before all outputs were written");
}

std::optional<int> signal_exit_status() {
  const int signo = g_signal.load();
  if (signo == 0) return std::nullopt;
  return 128 + signo;
}

}  // namespace servescope::cli
