// examples/base/checkpoints/run_directory.h — one trainer per run directory, and no run overwritten
// by accident.
// Lesson: docs/12-translation.md#checkpoints
//
// `train` takes the run directory's lock before anything else: an exclusive flock(2) on
// "<run>/lock", which holds the trainer's process id for the message a second trainer gets.
// The kernel releases the lock when the process ends, however it ends (kill -9 included), so a
// stale lock never blocks the next run. Taking it also proves early that --out can be written.
#pragma once

#include <string>

namespace atencion::examples {

class RunDirectoryLock {
 public:
  // Creates `run_dir` if needed and locks it. Throws std::runtime_error when the directory
  // cannot be written, or when another process holds the lock (naming its process id).
  explicit RunDirectoryLock(const std::string& run_dir);
  ~RunDirectoryLock();
  RunDirectoryLock(const RunDirectoryLock&) = delete;
  RunDirectoryLock& operator=(const RunDirectoryLock&) = delete;

 private:
  int descriptor_ = -1;
};

// A fresh run must not replace an earlier one unasked. When `run_dir` holds checkpoints:
// resume: nothing to do (train continues the run); overwrite: its checkpoints, "latest" and
// "best" are removed; neither: throws std::runtime_error saying which flag to pass.
void prepare_run_directory(const std::string& run_dir, bool resume, bool overwrite);

}  // namespace atencion::examples
