// examples/base/checkpoints/run_directory.cpp — see run_directory.h.
#include "base/checkpoints/run_directory.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "base/checkpoints/checkpoint.h"
#include "tensor/durable_write.h"

namespace atencion::examples {
namespace fs = std::filesystem;

namespace {

std::runtime_error cannot_write(const std::string& run_dir, const std::string& reason) {
  return std::runtime_error("train: cannot write the run directory --out " + run_dir + ": " +
                            reason);
}

// Proves that new files can be made in the run directory: creates "lock.tmp-<pid>" anew
// (never through a link) and removes it. A kill in between leaves a leftover the next lock
// holder removes.
void probe_writable(const std::string& lock_path, const std::string& run_dir) {
  const std::string probe = temporary_name(lock_path);
  ::unlink(probe.c_str());  // an earlier process of our id's leftover (a link: the link only)
  const int descriptor =
      ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  const bool written =
      descriptor >= 0 && ::write(descriptor, "probe\n", 6) == 6 && ::fsync(descriptor) == 0;
  const int error = errno;
  if (descriptor >= 0) ::close(descriptor);
  ::unlink(probe.c_str());
  if (!written) throw cannot_write(run_dir, probe + ": " + std::strerror(error));
}

// "" when `path` is absent or a regular file (not a link); else what it is.
std::string not_a_plain_file(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  if (!fs::exists(status) || fs::is_regular_file(status)) return "";
  if (fs::is_directory(status)) return "a directory";
  if (fs::is_symlink(status)) return "a symbolic link";
  if (fs::is_fifo(status)) return "a FIFO";
  return "not a regular file";
}

// "a, b and 3 more": the first few names, for one line.
std::string some_names(const std::vector<std::string>& names) {
  std::string text;
  const size_t shown = std::min<size_t>(names.size(), 6);
  for (size_t i = 0; i < shown; ++i) text += (i > 0 ? ", " : "") + names[i];
  if (names.size() > shown) text += " and " + std::to_string(names.size() - shown) + " more";
  return text;
}

std::string overwrite_run(const std::string& run_dir) {
  std::vector<std::string> checkpoints, pointers, leftovers, kept;
  for (const auto& entry : fs::directory_iterator(run_dir)) {
    const std::string name = entry.path().filename().string();
    if (is_checkpoint_name(name)) checkpoints.push_back(name);
    else if (name == "latest" || name == "best") pointers.push_back(name);
    else if (is_leftover_name(name)) leftovers.push_back(name);
    else if (name != "lock") kept.push_back(name);
  }
  std::sort(checkpoints.begin(), checkpoints.end());
  std::sort(kept.begin(), kept.end());
  // Oldest first, each renamed aside in one step: a kill part-way leaves the newest ones whole
  // (and "latest" naming one of them), never a half-removed "step-N".
  for (const std::string& name : checkpoints) {
    leftovers.push_back(fs::path(rename_aside((fs::path(run_dir) / name).string())).filename().string());
    test_kill_point("overwrite-renamed");
  }
  for (const std::string& name : pointers) fs::remove(fs::path(run_dir) / name);
  fsync_directory(run_dir);
  for (const std::string& name : leftovers) fs::remove_all(fs::path(run_dir) / name);
  if (kept.empty()) return "";
  return "overwrite: removed the run's checkpoints; kept what train does not write: " +
         some_names(kept);
}

// --resume-from an earlier checkpoint: the later "step-N" directories belong to the run being
// rewound, and go (renamed aside first).
std::string remove_later_checkpoints(const std::string& run_dir, const std::string& resume_from) {
  std::vector<std::string> later;
  for (const auto& entry : fs::directory_iterator(run_dir)) {
    const std::string name = entry.path().filename().string();
    if (is_checkpoint_name(name) &&
        (name.size() != resume_from.size() ? name.size() > resume_from.size()
                                           : name > resume_from))
      later.push_back(name);
  }
  std::sort(later.begin(), later.end());
  std::vector<std::string> aside;
  for (auto name = later.rbegin(); name != later.rend(); ++name)  // newest first
    aside.push_back(rename_aside((fs::path(run_dir) / *name).string()));
  for (const std::string& path : aside) fs::remove_all(path);
  if (later.empty()) return "";
  return "resume: from " + resume_from + "; removed the later " + some_names(later);
}

}  // namespace

RunDirectoryLock::RunDirectoryLock(const std::string& run_dir) {
  std::error_code error;
  if (fs::is_symlink(fs::symlink_status(run_dir, error)) && !fs::exists(run_dir, error))
    throw cannot_write(run_dir, "it is a symbolic link to " +
                                    fs::read_symlink(run_dir, error).string() +
                                    ", which does not exist");
  fs::create_directories(run_dir, error);
  if (error) throw cannot_write(run_dir, error.message());
  if (!fs::is_directory(run_dir)) throw cannot_write(run_dir, "it is not a directory");
  const std::string lock_path = (fs::path(run_dir) / "lock").string();
  // Never through a link (O_NOFOLLOW), and never waiting on a FIFO (O_NONBLOCK).
  descriptor_ = ::open(lock_path.c_str(),
                       O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (descriptor_ < 0 && errno == ELOOP)
    throw cannot_write(run_dir, lock_path + " is a symbolic link; the lock is a file train "
                                            "makes itself: remove the link");
  if (descriptor_ < 0) throw cannot_write(run_dir, lock_path + ": " + std::strerror(errno));
  struct stat status {};
  std::string problem;
  if (::fstat(descriptor_, &status) != 0) problem = std::strerror(errno);
  else if (!S_ISREG(status.st_mode)) problem = "it is not a regular file";
  else if (status.st_nlink != 1) problem = "it has other names (hard links) that the process "
                                           "id written into it would change";
  if (!problem.empty()) {
    ::close(descriptor_);
    descriptor_ = -1;
    throw cannot_write(run_dir, lock_path + ": " + problem + "; remove it");
  }
  if (::flock(descriptor_, LOCK_EX | LOCK_NB) != 0) {
    const int lock_error = errno;
    char holder[32] = {};
    const ssize_t length = ::pread(descriptor_, holder, sizeof holder - 1, 0);
    std::string pid = length > 0 ? std::string(holder, static_cast<size_t>(length)) : "";
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    ::close(descriptor_);
    descriptor_ = -1;
    if (lock_error != EWOULDBLOCK) throw cannot_write(run_dir, std::strerror(lock_error));
    throw std::runtime_error("train: " + run_dir + " is in use by another trainer" +
                             (pid.empty() ? "" : " (process " + pid + ")") +
                             "; wait for it to end, or train into another --out");
  }
  // Ours now: record who holds it, and check that new files can be made here.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(descriptor_, 0) != 0 ||
      ::pwrite(descriptor_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    ::close(descriptor_);
    throw cannot_write(run_dir, lock_path + ": " + std::strerror(errno));
  }
  try {
    // The probes of trainers killed before removing theirs: no other holder is alive now.
    for (const auto& entry : fs::directory_iterator(run_dir)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("lock.tmp-", 0) == 0 && is_leftover_name(name)) fs::remove(entry.path());
    }
    probe_writable(lock_path, run_dir);
  } catch (...) {
    ::close(descriptor_);
    throw;
  }
}

RunDirectoryLock::~RunDirectoryLock() {
  if (descriptor_ >= 0) ::close(descriptor_);  // closing releases the flock
}

std::string prepare_run_directory(const std::string& run_dir, bool resume, bool overwrite,
                                  const std::string& resume_from) {
  for (const char* pointer : {"latest", "best"})
    if (const std::string what = not_a_plain_file(fs::path(run_dir) / pointer); !what.empty())
      throw std::runtime_error("train: " + (fs::path(run_dir) / pointer).string() + " is " +
                               what + ", not the one-line file train keeps there; remove it, "
                               "or choose another --out");
  const CheckpointChoice choice = choose_checkpoint(run_dir);
  if (choice.directory.empty() && choice.skipped.empty()) return "";
  if (resume) {
    if (resume_from.empty()) return "";
    checkpoint_to_resume(run_dir, resume_from);  // refuses a name that is not a whole checkpoint
    return remove_later_checkpoints(run_dir, resume_from);
  }
  if (!overwrite) {
    const std::string newest = choice.skipped.empty() ? choice.directory : choice.skipped;
    throw std::runtime_error("train: " + run_dir + " already holds a run (its newest checkpoint: " +
                             fs::path(newest).filename().string() +
                             "); pass --resume to continue it, --overwrite to replace it, or "
                             "choose another --out");
  }
  return overwrite_run(run_dir);
}

std::string checkpoint_to_resume(const std::string& run_dir, const std::string& resume_from) {
  if (!resume_from.empty()) {
    const fs::path dir = fs::path(run_dir) / resume_from;
    if (!is_checkpoint_name(resume_from))
      throw std::runtime_error("train --resume-from " + resume_from +
                               ": not a checkpoint name (step- and 8 digits, as in " + run_dir +
                               ")");
    if (!fs::exists(dir / "config.json"))
      throw std::runtime_error("train --resume-from " + resume_from + ": " + dir.string() +
                               " is not a whole checkpoint (no config.json)");
    return dir.string();
  }
  const CheckpointChoice choice = choose_checkpoint(run_dir);
  if (!choice.skipped.empty()) {
    const std::string older = fs::path(choice.directory).filename().string();
    throw std::runtime_error(
        "train --resume: the newest checkpoint " + choice.skipped +
        " has no config.json (incomplete or damaged), so the run cannot go on from it; " +
        (choice.directory.empty()
             ? std::string("no other checkpoint is whole: pass --overwrite to start afresh")
             : "pass --resume-from " + older + " to go on from " + older +
                   " (the later ones are removed), or --overwrite to start afresh"));
  }
  return choice.directory;
}

}  // namespace atencion::examples
