// Tests for tensor/durable_write.cpp: a file reaches its name whole or not at all, and the
// temporary name "<path>.tmp-<pid>" never stays behind.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tensor/durable_write.h"

using namespace atencion;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

struct TemporaryDirectory {
  fs::path path;
  TemporaryDirectory() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("atencion-durable-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TemporaryDirectory() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(path))
      found.push_back(entry.path().filename().string());
    std::sort(found.begin(), found.end());
    return found;
  }
};

std::string text_of(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// While alive, a file may grow to at most `bytes`: a write past it fails with EFBIG (as on a
// full disk) instead of raising SIGXFSZ.
struct FileSizeLimit {
  rlimit saved{};
  void (*saved_handler)(int) = nullptr;
  explicit FileSizeLimit(rlim_t bytes) {
    saved_handler = ::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &saved);
    rlimit limited = saved;
    limited.rlim_cur = bytes;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &limited) == 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved);
    ::signal(SIGXFSZ, saved_handler);
  }
};

}  // namespace

TEST_CASE("durable write: the temporary name is the path with .tmp-<pid>", "[durable_write]") {
  CHECK(temporary_name("run/latest") == "run/latest.tmp-" + std::to_string(::getpid()));
}

TEST_CASE("durable write: the new bytes replace the old, and only the file stays",
          "[durable_write]") {
  TemporaryDirectory dir;
  write_file_atomically(dir.file("latest"), "step-00000001\n");
  write_file_atomically(dir.file("latest"), "step-00000002\n");
  CHECK(text_of(dir.file("latest")) == "step-00000002\n");
  CHECK(dir.names() == std::vector<std::string>{"latest"});
}

TEST_CASE("durable write: a write that fails leaves the old file and no temporary",
          "[durable_write]") {
  TemporaryDirectory dir;
  const std::string path = dir.file("model.bin");
  write_file_atomically(path, "the old bytes");
  {
    FileSizeLimit limit(4096);
    CHECK_THROWS_WITH(write_file_atomically(path, std::string(10000, 'x')),
                      Contains(path + ": cannot write " + temporary_name(path) + " (disk full?)"));
  }
  CHECK(text_of(path) == "the old bytes");
  CHECK(dir.names() == std::vector<std::string>{"model.bin"});
}

TEST_CASE("durable write: a file given up before commit leaves nothing behind",
          "[durable_write]") {
  TemporaryDirectory dir;
  const std::string path = dir.file("model.bin");
  write_file_atomically(path, "the old bytes");
  {
    DurableFile file(path);
    file.write("half of the new", 15);
    CHECK(fs::exists(temporary_name(path)));
  }  // as when an exception leaves the writer between two writes
  CHECK(text_of(path) == "the old bytes");
  CHECK(dir.names() == std::vector<std::string>{"model.bin"});
}

TEST_CASE("durable write: a link at either name is replaced, never written through",
          "[durable_write]") {
  TemporaryDirectory dir;
  std::ofstream(dir.file("victim")) << "precious\n";
  // At the final name: rename(2) replaces the link itself.
  fs::create_symlink(dir.file("victim"), dir.file("latest"));
  write_file_atomically(dir.file("latest"), "step-00000002\n");
  CHECK_FALSE(fs::is_symlink(dir.file("latest")));
  CHECK(text_of(dir.file("latest")) == "step-00000002\n");
  // At the temporary name (a leftover of a killed process of our id, or planted): removed.
  fs::create_symlink(dir.file("victim"), temporary_name(dir.file("best")));
  write_file_atomically(dir.file("best"), "step-00000004\n");
  CHECK(text_of(dir.file("best")) == "step-00000004\n");
  CHECK(text_of(dir.file("victim")) == "precious\n");
  CHECK(dir.names() == std::vector<std::string>{"best", "latest", "victim"});
}

TEST_CASE("durable write: a temporary that cannot be made names it, and the path stays",
          "[durable_write]") {
  TemporaryDirectory dir;
  const std::string path = dir.file("latest");
  write_file_atomically(path, "old\n");
  fs::create_directory(temporary_name(path));  // unlink(2) cannot remove it
  CHECK_THROWS_WITH(write_file_atomically(path, "new\n"),
                    Contains(path + ": cannot create " + temporary_name(path) + ": File exists"));
  CHECK(text_of(path) == "old\n");
}

TEST_CASE("durable write: rename_aside gives a file or directory its leftover name",
          "[durable_write]") {
  TemporaryDirectory dir;
  fs::create_directory(dir.file("step-00000003"));
  std::ofstream(dir.file("step-00000003") + "/config.json") << "{}";
  const std::string aside = rename_aside(dir.file("step-00000003"));
  CHECK(aside == temporary_name(dir.file("step-00000003")) + "-removed");
  CHECK(fs::exists(aside + "/config.json"));
  CHECK_FALSE(fs::exists(dir.file("step-00000003")));
  CHECK_THROWS(rename_aside(dir.file("step-00000003")));  // gone already
}
