// How servescope-cli ends on SIGINT and SIGTERM: it stops its work, removes its temporary files and
// exits with 128 + the signal (130, 143), as a shell reports a process the signal ended.
//
// The signals are blocked in every thread and taken by one thread of their own, which asks long
// work to stop through stop_token() (a simulation then throws Cancelled and unwinds, its
// OutputFiles removing their temporaries). Work that never looks at the token is not waited for:
// when no one took the token, or a grace period later, or at a second signal, that thread removes
// every live temporary (remove_output_temporaries) and ends the process with _exit.
#pragma once

#include <optional>
#include <stop_token>

namespace servescope::cli {

// Blocks SIGINT and SIGTERM and starts the thread that waits for them. Call it once, before any
// other thread starts, so that every thread inherits the mask.
void handle_stop_signals();

// Stop is requested on it at the first SIGINT or SIGTERM. Taking it tells the signal thread that
// the work in progress listens, and earns it the grace period to unwind.
std::stop_token stop_token();

// Throws Cancelled once a stop was requested: for work between steps it cannot stop within,
// such as putting one file after another in place.
void throw_if_stopped();

// 128 + the signal that asked to stop, or nothing when none came.
std::optional<int> signal_exit_status();

}  // namespace servescope::cli
