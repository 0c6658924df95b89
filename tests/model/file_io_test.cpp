#include "model/io/file_io.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "model/core/error.h"
#include "tests/support/test_support.h"

using namespace servescope;

TEST(FileIo, AtomicWriteReplacesWholeFilesAndLeavesNoTemporaries) {
  test::TempDir dir;
  const auto path = dir.path() / "out.json";
  write_file_atomic(path, "first");
  EXPECT_EQ(test::read_file(path), "first");
  write_file_atomic(path, "second, longer");
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
  write_file_atomic(path, "precious");
  EXPECT_THROW(write_file_atomic(dir.path() / "missing-folder/x.json", "data"), Error);
  EXPECT_EQ(test::read_file(path), "precious");
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
