// Tests for examples/base/io/file_checks.cpp: reading only regular files (a FIFO, a device,
// a directory refused by name and at once). Writing: tests/tensor/test_durable_write.cpp.
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
