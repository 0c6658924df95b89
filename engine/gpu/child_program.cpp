#include "engine/gpu/child_program.h"

#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sys/wait.h>

#include "model/core/error.h"

extern char** environ;

namespace servescope::engine::gpu {

std::vector<std::string> environment_with(const EnvironmentChanges& changes) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [key, value] : changes)
      replaced = replaced || key == name;
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [key, value] : changes)
    env.push_back(key + "=" + value);
  return env;
}

std::vector<char*> exec_pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int run_to_end(const ChildProgram& program) {
  if (program.argv.empty()) throw Error("no program to run");
  auto args = program.argv;
  auto env = environment_with(program.env);
  auto argv = exec_pointers(args);
  auto envp = exec_pointers(env);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (program.stdout_to_stderr) posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  pid_t pid = -1;
  const int failed = ::posix_spawn(&pid, args.front().c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) throw Error("cannot start " + args.front() + ": " + std::strerror(failed));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error("cannot wait for " + args.front() + ": " + std::strerror(errno));
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace servescope::engine::gpu
