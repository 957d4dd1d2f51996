// examples/base/checkpoints/run_directory.h — one trainer per run directory, and no run overwritten
// by accident.
// Lesson: docs/12-translation.md#checkpoints
//
// `train` takes the run directory's lock before anything else: an exclusive flock(2) on
// "<run>/lock", which holds the trainer's process id for the message a second trainer gets.
// The kernel releases the lock when the process ends, however it ends (kill -9 included), so a
// stale lock never blocks the next run. Taking it also proves early that --out can be written.
// The lock file is never a link or a special file: train writes its process id into it, and
// would otherwise write into whatever a link named.
#pragma once

#include <string>

namespace atencion::examples {

class RunDirectoryLock {
 public:
  // Creates `run_dir` if needed and locks it. Throws std::runtime_error when the directory
  // cannot be written (or is a link to nothing), when "lock" is a link, not a regular file or
  // has other names (hard links), or when another process holds the lock (naming its process
  // id). Removes the "lock.tmp-<pid>" leftovers of killed trainers.
  explicit RunDirectoryLock(const std::string& run_dir);
  ~RunDirectoryLock();
  RunDirectoryLock(const RunDirectoryLock&) = delete;
  RunDirectoryLock& operator=(const RunDirectoryLock&) = delete;

 private:
  int descriptor_ = -1;
};

// A fresh run must not replace an earlier one unasked. When `run_dir` holds checkpoints (whole
// or damaged):
//   resume: nothing to do (train continues the run); with `resume_from` ("step-N", a whole
//     checkpoint there) the later "step-N" directories are removed, since the run goes on from
//     the earlier one;
//   overwrite: only what train writes is removed ("step-N" directories, "latest", "best", and
//     leftovers "<those>.tmp-<pid>"; "lock" stays: this trainer holds it), each checkpoint
//     first renamed aside so that a kill part-way leaves whole checkpoints or none;
//   neither: throws std::runtime_error saying which flag to pass.
// Refuses a "latest" or "best" that is not a regular file (a directory could not be replaced
// when the first checkpoint is published). Returns a line for the user ("" if none): what
// --overwrite kept, or what --resume-from removed.
std::string prepare_run_directory(const std::string& run_dir, bool resume, bool overwrite,
                                  const std::string& resume_from = "");

// The checkpoint `train --resume` continues from: "" when `run_dir` holds none; `resume_from`
// ("step-N") when given; else the newest, which must be whole: throws std::runtime_error
// naming a later damaged "step-N" directory (and the --resume-from that would pass it over).
std::string checkpoint_to_resume(const std::string& run_dir, const std::string& resume_from = "");

}  // namespace atencion::examples
