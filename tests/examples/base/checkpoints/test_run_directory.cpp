// Tests for examples/base/checkpoints/run_directory.cpp: one lock holder per run directory, an --out
// that cannot be written found at once, and a run never replaced without --overwrite.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

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

  // --overwrite: the run's files go; what train does not write stays, and is named.
  CHECK(prepare_run_directory(run.string(), false, true) ==
        "overwrite: removed the run's checkpoints; kept what train does not write: show");
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(run)) left.push_back(entry.path().filename());
  CHECK(left == std::vector<std::string>{"show"});
  fs::remove_all(run);
}

TEST_CASE("run directory: --overwrite removes exactly the names train writes",
          "[translate][run_directory]") {
  const fs::path run = fresh_directory("exact-names");
  touch(run / "step-00000004" / "config.json", "{}");
  touch(run / "latest", "step-00000004\n");
  touch(run / "best", "step-00000004\n");
  touch(run / "latest.tmp-123", "step-0");
  touch(run / "step-00000002.tmp-99-removed" / "model.safetensors");
  touch(run / "lock.tmp-4242", "4242\n");
  // The user's own files, with names that merely begin like the program's.
  const std::vector<std::string> users = {"best-bleu-notes.txt", "bestiary/cat.txt",
                                          "latest_eval.tsv",     "step-by-step.md",
                                          "step-00000004.txt",   "latest.tmp-notes"};
  for (const auto& name : users) touch(run / name, "mine");
  const std::string said = prepare_run_directory(run.string(), false, true);
  CHECK_THAT(said, Contains("kept what train does not write: best-bleu-notes.txt, bestiary, "
                            "latest.tmp-notes, latest_eval.tsv, step-00000004.txt, "
                            "step-by-step.md"));
  for (const auto& name : users) {
    INFO(name);
    CHECK(fs::exists(run / name));
  }
  for (const char* name : {"step-00000004", "latest", "best", "latest.tmp-123",
                           "step-00000002.tmp-99-removed", "lock.tmp-4242"}) {
    INFO(name);
    CHECK_FALSE(fs::exists(run / name));
  }
  fs::remove_all(run);
}

TEST_CASE("run directory: the lock is never a link, a special file or another file's name",
          "[translate][run_directory]") {
  const fs::path base = fresh_directory("lock-links");
  touch(base / "victim.txt", "precious\n");
  fs::create_directories(base / "symlinked");
  fs::create_symlink(base / "victim.txt", base / "symlinked" / "lock");
  CHECK_THROWS_WITH(RunDirectoryLock((base / "symlinked").string()),
                    Contains((base / "symlinked" / "lock").string() + " is a symbolic link"));
  fs::create_directories(base / "hard");
  fs::create_hard_link(base / "victim.txt", base / "hard" / "lock");
  CHECK_THROWS_WITH(RunDirectoryLock((base / "hard").string()),
                    Contains("it has other names (hard links)"));
  fs::create_directories(base / "fifo");
  REQUIRE(::mkfifo((base / "fifo" / "lock").c_str(), 0644) == 0);
  CHECK_THROWS_WITH(RunDirectoryLock((base / "fifo").string()),
                    Contains("it is not a regular file"));
  std::ifstream victim(base / "victim.txt");
  CHECK(std::string(std::istreambuf_iterator<char>(victim), {}) == "precious\n");

  // --out a link to nothing: said so, not "File exists".
  fs::create_symlink(base / "nowhere", base / "dangling");
  CHECK_THROWS_WITH(RunDirectoryLock((base / "dangling").string()),
                    Contains("it is a symbolic link to " + (base / "nowhere").string() +
                             ", which does not exist"));
  // A killed trainer's probe is removed by the next lock holder; a user's file is not.
  touch(base / "run" / "lock.tmp-31337", "31337\n");
  touch(base / "run" / "lock.tmp-notes", "mine");
  { const RunDirectoryLock lock((base / "run").string()); }
  CHECK_FALSE(fs::exists(base / "run" / "lock.tmp-31337"));
  CHECK(fs::exists(base / "run" / "lock.tmp-notes"));
  fs::remove_all(base);
}

TEST_CASE("run directory: a 'latest' or 'best' that train could not replace is refused",
          "[translate][run_directory]") {
  const fs::path run = fresh_directory("pointers");
  touch(run / "step-00000004" / "config.json", "{}");
  fs::create_directories(run / "latest");
  CHECK_THROWS_WITH(prepare_run_directory(run.string(), true, false),
                    Contains((run / "latest").string() +
                             " is a directory, not the one-line file train keeps there"));
  fs::remove(run / "latest");
  fs::create_symlink(run / "elsewhere", run / "best");
  CHECK_THROWS_WITH(prepare_run_directory(run.string(), true, false),
                    Contains((run / "best").string() + " is a symbolic link"));
  fs::remove_all(run);
}

TEST_CASE("run directory: --resume goes on only from the newest checkpoint, unless told which",
          "[translate][run_directory]") {
  const fs::path run = fresh_directory("resume-newest");
  touch(run / "step-00000004" / "config.json", "{}");
  touch(run / "step-00000008" / "config.json", "{}");
  touch(run / "step-00000012" / "model.safetensors");  // config.json lost
  touch(run / "latest", "step-00000012\n");
  CHECK_THROWS_WITH(checkpoint_to_resume(run.string()),
                    Contains("the newest checkpoint " + (run / "step-00000012").string() +
                             " has no config.json") &&
                        Contains("pass --resume-from step-00000008"));
  CHECK(checkpoint_to_resume(run.string(), "step-00000008") == (run / "step-00000008").string());
  CHECK_THROWS_WITH(checkpoint_to_resume(run.string(), "step-00000012"),
                    Contains("is not a whole checkpoint"));
  CHECK_THROWS_WITH(checkpoint_to_resume(run.string(), "../step-00000008"),
                    Contains("not a checkpoint name"));
  // Resuming from step 8 removes the later ones, and says so.
  CHECK(prepare_run_directory(run.string(), true, false, "step-00000008") ==
        "resume: from step-00000008; removed the later step-00000012");
  CHECK_FALSE(fs::exists(run / "step-00000012"));
  CHECK(checkpoint_to_resume(run.string()) == (run / "step-00000008").string());
  fs::remove_all(run);
}
