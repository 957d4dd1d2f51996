// Tests for examples/base/io/file_checks.cpp: reading only regular files (a FIFO, a device,
// a directory refused by name and at once), and writing never through a link.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/io/file_checks.h"

using namespace atencion::examples;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() /
             ("atencion-test-file-checks-" + std::to_string(::getpid()) + "-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("file checks: a regular file is read whole, and within its bound only",
          "[translate][file_checks]") {
  TempDir dir("read");
  std::ofstream(dir / "pairs.tsv") << "hola\thello\n";
  CHECK(read_file(dir / "pairs.tsv") == "hola\thello\n");
  CHECK(not_a_regular_file(dir / "pairs.tsv").empty());
  CHECK_THROWS_WITH(read_file(dir / "pairs.tsv", 4),
                    Contains(dir / "pairs.tsv") && Contains("11 bytes, more than the 4"));
  CHECK_THROWS_WITH(read_file(dir / "missing"), Contains(dir / "missing") && Contains("no such file"));
  CHECK(not_a_regular_file(dir / "missing") == "does not exist");
}

TEST_CASE("file checks: a FIFO, a device and a directory are refused without reading",
          "[translate][file_checks]") {
  TempDir dir("special");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
  // Opening a FIFO for reading would wait for a writer, reading it forever: neither happens.
  CHECK_THROWS_WITH(read_file(dir / "fifo"),
                    Contains(dir / "fifo" + ": is a FIFO, not a regular file"));
  CHECK(not_a_regular_file(dir / "fifo") == "is a FIFO, not a regular file");
  // /dev/zero never ends; through a link too.
  fs::create_symlink("/dev/zero", dir / "model.safetensors");
  CHECK_THROWS_WITH(read_file(dir / "model.safetensors"),
                    Contains("is a character device, not a regular file"));
  CHECK_THROWS_WITH(RegularFile("/dev/zero"), Contains("/dev/zero: is a character device"));
  CHECK_THROWS_WITH(read_file(dir.path.string()), Contains("is a directory, not a regular file"));
}

TEST_CASE("file checks: writing replaces a link at the name, and never writes through one",
          "[translate][file_checks]") {
  TempDir dir("write");
  std::ofstream(dir / "victim.txt") << "precious\n";
  // A link planted at the final name is replaced by the new file (rename(2) does not follow).
  fs::create_symlink(dir / "victim.txt", dir / "latest");
  write_file_atomically(dir / "latest", "step-00000002\n");
  CHECK_FALSE(fs::is_symlink(dir / "latest"));
  CHECK(text_of(dir / "latest") == "step-00000002\n");
  // A link planted at the temporary name is removed, not followed.
  const std::string temporary = dir / ("best.tmp-" + std::to_string(::getpid()));
  fs::create_symlink(dir / "victim.txt", temporary);
  write_file_atomically(dir / "best", "step-00000004\n");
  CHECK(text_of(dir / "best") == "step-00000004\n");
  CHECK_FALSE(fs::exists(fs::symlink_status(temporary)));
  CHECK(text_of(dir / "victim.txt") == "precious\n");
  // A directory that cannot be written: the temporary file's name in the message.
  CHECK_THROWS_WITH(write_file_atomically(dir / "no-such-dir/latest", "x"),
                    Contains(dir / "no-such-dir/latest.tmp-") && Contains("cannot create"));
}
