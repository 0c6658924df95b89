#include "model/io/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>

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
