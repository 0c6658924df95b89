// servescope-cli does not link LibTorch: loading its 290 libraries made every command start in
// half a second. The commands that run real models (`profile`, `live worker --executor torch`)
// run in servescope-torch, the same commands built with torchexec/, installed beside it.
#pragma once

namespace servescope::cli {

// Replaces this process with servescope-torch from the same folder, with the same arguments.
// Throws QueryError saying how to get one when there is none (or it cannot be started).
[[noreturn]] void hand_over_to_torch();

}  // namespace servescope::cli
