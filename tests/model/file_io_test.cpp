#include "model/io/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <vector>

#include "model/core/error.h"
#include "tests/support/test_support.h"

using namespace servescope;

TEST(FileIo, AtomicWriteReplacesWholeFilesAndLeavesNoTemporaries) {
  test::TempDir dir;
  const auto path = dir.path() / "out.json";
  write_output_file(path, "first");
  EXPECT_EQ(test::read_file(path), "first");
  write_output_file(path, "second, longer");
  EXPECT_EQ(test::read_file(path), "second, longer");
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path()))
    ++files;
  EXPECT_EQ(files, 1);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_NE(st.st_mode & S_IRUSR, 0u);
}

TEST(FileIo, FailedWriteKeepsTheOldFile) {
  test::TempDir dir;
  const auto path = dir.path() / "keep.json";
  write_output_file(path, "precious");
  EXPECT_THROW(write_output_file(dir.path() / "missing-folder/x.json", "data"), Error);
  EXPECT_EQ(test::read_file(path), "precious");
}

TEST(FileIo, ASymlinkStaysAndItsTargetIsReplaced) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path() / "real");
  const auto target = dir.path() / "real/data.json";
  write_output_file(target, "old");
  ::chmod(target.c_str(), 0640);
  const auto link = dir.path() / "link.json";
  std::filesystem::create_symlink("real/data.json", link);
  write_output_file(link, "new");
  EXPECT_TRUE(std::filesystem::is_symlink(std::filesystem::symlink_status(link)));
  EXPECT_EQ(test::read_file(target), "new");
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u) << "an existing file keeps its permissions";
  // A dangling link: its target is created, the link kept.
  const auto dangling = dir.path() / "dangling.json";
  std::filesystem::create_symlink("real/new.json", dangling);
  write_output_file(dangling, "created");
  EXPECT_TRUE(std::filesystem::is_symlink(std::filesystem::symlink_status(dangling)));
  EXPECT_EQ(test::read_file(dir.path() / "real/new.json"), "created");
  // A loop is refused with the path, not followed for ever.
  std::filesystem::create_symlink("loop-b", dir.path() / "loop-a");
  std::filesystem::create_symlink("loop-a", dir.path() / "loop-b");
  EXPECT_THROW(write_output_file(dir.path() / "loop-a", "x"), Error);
}

TEST(FileIo, AFifoIsWrittenDirectlyForItsReader) {
  test::TempDir dir;
  const auto fifo = dir.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo);
    got.assign(std::istreambuf_iterator<char>(in), {});
  });
  write_output_file(fifo, "through the pipe");
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO must not be replaced by a file";
}

TEST(FileIo, DevicesAreWrittenNotReplaced) {
  write_output_file("/dev/null", "discarded");
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "/dev/full is not writable here";
  try {
    write_output_file("/dev/full", std::string(1 << 17, 'x'));
    FAIL() << "writing to /dev/full succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No space left"), std::string::npos) << e.what();
  }
  ASSERT_EQ(::lstat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(FileIo, DashIsStandardOutput) {
  test::TempDir dir;
  const auto captured = dir.path() / "stdout.txt";
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  write_output_file("-", "to stdout\n");
  // Its other names go through the same descriptor: appended, not reopened at offset 0 or
  // renamed over the redirected file.
  write_output_file("/dev/stdout", "again\n");
  write_output_file("/dev/fd/1", "and again\n");
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  EXPECT_EQ(test::read_file(captured), "to stdout\nagain\nand again\n");
  EXPECT_FALSE(std::filesystem::exists("-"));
  EXPECT_TRUE(names_standard_output("/dev/stdout"));
  EXPECT_FALSE(names_standard_output("/dev/stderr"));
}

// A read-only folder refuses the write, naming the path; the old file stays whole. Root writes
// anywhere, so the check runs in a child that gives up root first.
TEST(FileIo, AReadOnlyFolderFailsAndKeepsTheOldFile) {
  test::TempDir dir;
  const auto folder = dir.path() / "locked";
  std::filesystem::create_directories(folder);
  const auto path = folder / "keep.json";
  write_output_file(path, "precious");
  ASSERT_EQ(::chmod(folder.c_str(), 0555), 0);
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
    int checked = 0, written = 0;
    try {
      check_output_path(path);
    } catch (const Error& e) {
      checked = std::string(e.what()).find(path.string()) != std::string::npos ? 1 : 0;
    }
    try {
      write_output_file(path, "overwritten");
    } catch (const Error& e) {
      written = std::string(e.what()).find(path.string()) != std::string::npos ? 1 : 0;
    }
    ::_exit(checked && written ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ::chmod(folder.c_str(), 0755);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: could not drop root; 1: the write or the check did not fail naming the path";
  EXPECT_EQ(test::read_file(path), "precious");
}

TEST(FileIo, OutputPathsAreCheckedBeforeWork) {
  test::TempDir dir;
  EXPECT_NO_THROW(check_output_path(dir.path() / "new.json"));
  EXPECT_NO_THROW(check_output_path("-"));
  EXPECT_NO_THROW(check_output_path("/dev/null"));
  EXPECT_THROW(check_output_path(dir.path() / "missing-folder/x.json"), Error);
  EXPECT_THROW(check_output_path(dir.path()), Error);
  EXPECT_THROW(write_output_file(dir.path(), "x"), Error);
}

TEST(FileIo, ReadLimits) {
  test::TempDir dir;
  const auto path = dir.write("big.txt", std::string(2000, 'x'));
  EXPECT_EQ(read_text_file(path).size(), 2000u);
  try {
    read_text_file(path, 1000);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(e.reason().find("limit is 1000 bytes"), std::string::npos);
  }
  EXPECT_THROW(read_text_file(dir.path()), InputError);
  EXPECT_THROW(read_text_file(dir.path() / "absent"), InputError);
}

namespace {

// A pid that no process has: a child's, once it has ended and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

bool in_registry(const std::filesystem::path& tmp) {
  const auto live = output_temporaries();
  return std::ranges::find(live, tmp) != live.end();
}

// The one temporary the registry holds for `target` (empty when none).
std::filesystem::path temporary_of(const std::filesystem::path& target) {
  for (const auto& tmp : output_temporaries())
    if (tmp.parent_path() == target.parent_path() &&
        tmp.filename().string().starts_with("." + target.filename().string() + ".tmp-"))
      return tmp;
  return {};
}

void age(const std::filesystem::path& file, std::time_t seconds) {
  const timespec times[2] = {{std::time(nullptr) - seconds, 0}, {std::time(nullptr) - seconds, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
}

}  // namespace

TEST(FileIo, TemporariesNameTheirProcessAndAreRegisteredUntilPutInPlace) {
  test::TempDir dir;
  const auto path = dir.path() / "run.json";
  std::filesystem::path tmp;
  {
    OutputFile file(path);
    tmp = temporary_of(path);
    ASSERT_FALSE(tmp.empty());
    EXPECT_TRUE(tmp.filename().string().starts_with(".run.json.tmp-" + std::to_string(::getpid()) + "-")) << tmp;
    EXPECT_EQ(tmp.filename().string().size(),
              std::string(".run.json.tmp-").size() + std::to_string(::getpid()).size() + std::string("-XXXXXX").size());
    EXPECT_TRUE(std::filesystem::exists(tmp));
    file.stream() << "12345";
    file.commit();
    EXPECT_EQ(file.bytes_written(), 5u);
    EXPECT_FALSE(in_registry(tmp)) << "a temporary put in place is no longer ours to remove";
  }
  EXPECT_EQ(test::read_file(path), "12345");
  {
    OutputFile abandoned(dir.path() / "abandoned.json");
    tmp = temporary_of(dir.path() / "abandoned.json");
    ASSERT_TRUE(in_registry(tmp));
  }
  EXPECT_FALSE(in_registry(tmp));
  EXPECT_FALSE(std::filesystem::exists(tmp));
}

TEST(FileIo, RemovingTheLiveTemporariesFailsTheirCommits) {
  test::TempDir dir;
  OutputFile a(dir.path() / "a.json"), b(dir.path() / "b.csv");
  const auto tmp_a = temporary_of(dir.path() / "a.json"), tmp_b = temporary_of(dir.path() / "b.csv");
  ASSERT_TRUE(std::filesystem::exists(tmp_a));
  ASSERT_TRUE(std::filesystem::exists(tmp_b));
  a.stream() << "partial";
  remove_output_temporaries();
  EXPECT_FALSE(std::filesystem::exists(tmp_a));
  EXPECT_FALSE(std::filesystem::exists(tmp_b));
  EXPECT_TRUE(output_temporaries().empty());
  EXPECT_THROW(a.commit(), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "a.json")) << "nothing half-written is put in place";
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(FileIo, SweepRemovesOnlyStaleTemporariesOfOurNaming) {
  test::TempDir dir;
  const auto& d = dir.path();
  const std::string dead = std::to_string(dead_pid());
  const std::string me = std::to_string(::getpid()), parent = std::to_string(::getppid());
  const std::vector<std::string> stale = {
      ".run.json.tmp-" + dead + "-aB3xYz",  // its process is gone
      ".requests.csv.tmp-Ab12Cd",           // the naming before pids, two hours old
  };
  const std::vector<std::string> kept = {
      ".run.json.tmp-" + me + "-aB3xYz",      // this process's own
      ".run.json.tmp-" + parent + "-aB3xYz",  // a live process's
      ".fresh.csv.tmp-Ab12Cd",                // the naming before pids, but recent
      "run.json.tmp-" + dead + "-aB3xYz",     // no leading dot
      ".tmp-" + dead + "-aB3xYz",             // no NAME
      ".run.json.tmp-" + dead + "-aB3xY",     // five characters
      ".run.json.tmp-" + dead + "-aB3x_z",    // not mkstemp's
      ".run.json.tmp-" + dead + "-aB3xYz.bak",
      ".run.json.tmp-0-aB3xYz",  // pid 0 would be a process group
      ".run.json.tmp-x" + dead + "-aB3xYz",
      ".old.json.tmp-Ab12Cde",  // seven characters, old
      "notes.txt",
  };
  for (const auto& name : stale)
    dir.write(name, "stale");
  for (const auto& name : kept)
    dir.write(name, "kept");
  age(d / ".requests.csv.tmp-Ab12Cd", 7200);
  age(d / ".old.json.tmp-Ab12Cde", 7200);
  // A symlink of our naming is not followed, and as it is no regular file, it stays.
  const auto victim = dir.write("victim.json", "precious");
  std::filesystem::create_symlink(victim, d / (".link.json.tmp-" + dead + "-aB3xYz"));
  std::filesystem::create_symlink(victim, d / ".oldlink.json.tmp-Ab12Cd");
  age(d / ".oldlink.json.tmp-Ab12Cd", 7200);
  // A folder of our naming stays too.
  std::filesystem::create_directory(d / (".dir.json.tmp-" + dead + "-aB3xYz"));
  // Another user's file stays (only root can make one here).
  const auto foreign = d / (".foreign.json.tmp-" + dead + "-aB3xYz");
  const bool can_chown = ::geteuid() == 0;
  if (can_chown) {
    dir.write(foreign.filename().string(), "theirs");
    ASSERT_EQ(::chown(foreign.c_str(), 65534, 65534), 0);
  }

  EXPECT_EQ(sweep_stale_temporaries(d), stale.size());
  for (const auto& name : stale)
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(d / name))) << name;
  for (const auto& name : kept)
    EXPECT_TRUE(std::filesystem::exists(d / name)) << name;
  EXPECT_TRUE(std::filesystem::is_symlink(std::filesystem::symlink_status(d / (".link.json.tmp-" + dead + "-aB3xYz"))));
  EXPECT_TRUE(std::filesystem::is_symlink(std::filesystem::symlink_status(d / ".oldlink.json.tmp-Ab12Cd")));
  EXPECT_EQ(test::read_file(victim), "precious");
  EXPECT_TRUE(std::filesystem::is_directory(d / (".dir.json.tmp-" + dead + "-aB3xYz")));
  if (can_chown) {
    EXPECT_TRUE(std::filesystem::exists(foreign)) << "another user's file is not ours to remove";
  }
  EXPECT_EQ(sweep_stale_temporaries(d / "absent"), 0u);
}

TEST(FileIo, CreatingATemporarySweepsItsFolder) {
  test::TempDir dir;
  const auto orphan = dir.write(".run.json.tmp-" + std::to_string(dead_pid()) + "-aB3xYz", "left by SIGKILL");
  write_output_file(dir.path() / "other.json", "x");
  EXPECT_FALSE(std::filesystem::exists(orphan));
  // Writes through a device leave other folders alone.
  const auto orphan2 = dir.write(".run.json.tmp-" + std::to_string(dead_pid()) + "-aB3xYz", "again");
  write_output_file("/dev/null", "x");
  EXPECT_TRUE(std::filesystem::exists(orphan2));
}
