// Tests for examples/base/checkpoints/run_directory.cpp: one lock holder per run directory, an --out
// that cannot be written found at once, and a run never replaced without --overwrite.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "base/checkpoints/run_directory.h"

using namespace atencion::examples;

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

fs::path fresh_directory(const std::string& name) {
  const fs::path path = fs::temp_directory_path() /
                        ("atencion-test-run-directory-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(path);
  return path;
}

void touch(const fs::path& path, const std::string& text = "") {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("run directory: a second lock on one directory is refused, then free again",
          "[translate][run_directory]") {
  const fs::path run = fresh_directory("lock");
  {
    const RunDirectoryLock first(run.string());
    CHECK(fs::exists(run / "lock"));
    // flock(2) locks belong to one open file: a second open, even in this process, conflicts.
    CHECK_THROWS_WITH(RunDirectoryLock(run.string()),
                      Contains(run.string() + " is in use by another trainer (process " +
                               std::to_string(::getpid()) + ")") &&
                          Contains("another --out"));
  }
  // Released when the holder goes (or its process dies): the next trainer gets it.
  std::optional<RunDirectoryLock> next;
  CHECK_NOTHROW(next.emplace(run.string()));
  next.reset();
  fs::remove_all(run);
}

TEST_CASE("run directory: an --out that cannot be written is refused at once",
          "[translate][run_directory]") {
  const fs::path base = fresh_directory("unwritable");
  touch(base / "a-file");
  const std::string below_a_file = (base / "a-file" / "run").string();
  CHECK_THROWS_WITH(RunDirectoryLock(below_a_file),
                    Contains("cannot write the run directory --out " + below_a_file));
  CHECK_THROWS_WITH(RunDirectoryLock((base / "a-file").string()),
                    Contains("cannot write the run directory --out"));
  fs::remove_all(base);
}

TEST_CASE("run directory: a run is replaced only with --overwrite, continued with --resume",
          "[translate][run_directory]") {
  const fs::path run = fresh_directory("overwrite");
  fs::create_directories(run);
  prepare_run_directory(run.string(), false, false);  // empty: a fresh run may start

  touch(run / "step-00000004" / "config.json", "{}");
  touch(run / "step-00000006" / "config.json", "{}");
  touch(run / "step-00000002.tmp-99" / "config.json", "{}");
  touch(run / "latest", "step-00000006\n");
  touch(run / "best", "step-00000004\n");
  touch(run / "show" / "training.svg", "<svg/>");
  CHECK_THROWS_WITH(prepare_run_directory(run.string(), false, false),
                    Contains(run.string() + " already holds a run (its newest checkpoint: "
                                            "step-00000006)") &&
                        Contains("--resume") && Contains("--overwrite") && Contains("--out"));
  prepare_run_directory(run.string(), true, false);  // --resume: untouched
  CHECK(fs::exists(run / "step-00000006"));

  prepare_run_directory(run.string(), false, true);  // --overwrite: the run's files go
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(run)) left.push_back(entry.path().filename());
  CHECK(left == std::vector<std::string>{"show"});
  fs::remove_all(run);
}
