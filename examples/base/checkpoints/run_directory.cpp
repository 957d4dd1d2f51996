// examples/base/checkpoints/run_directory.cpp — see run_directory.h.
#include "base/checkpoints/run_directory.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "base/checkpoints/checkpoint.h"

namespace atencion::examples {
namespace fs = std::filesystem;

namespace {

std::runtime_error cannot_write(const std::string& run_dir, const std::string& reason) {
  return std::runtime_error("train: cannot write the run directory --out " + run_dir + ": " +
                            reason);
}

}  // namespace

RunDirectoryLock::RunDirectoryLock(const std::string& run_dir) {
  std::error_code error;
  fs::create_directories(run_dir, error);
  if (error) throw cannot_write(run_dir, error.message());
  if (!fs::is_directory(run_dir)) throw cannot_write(run_dir, "it is not a directory");
  const std::string lock_path = (fs::path(run_dir) / "lock").string();
  descriptor_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (descriptor_ < 0) throw cannot_write(run_dir, lock_path + ": " + std::strerror(errno));
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
  const std::string probe = lock_path + ".tmp-" + std::to_string(::getpid());
  try {
    write_file_atomically(probe, pid);
    fs::remove(probe);
  } catch (const std::exception& failure) {
    ::close(descriptor_);
    throw cannot_write(run_dir, failure.what());
  }
}

RunDirectoryLock::~RunDirectoryLock() {
  if (descriptor_ >= 0) ::close(descriptor_);  // closing releases the flock
}

void prepare_run_directory(const std::string& run_dir, bool resume, bool overwrite) {
  const std::string checkpoint = resolve_checkpoint(run_dir);
  if (checkpoint.empty() || resume) return;
  if (!overwrite)
    throw std::runtime_error("train: " + run_dir + " already holds a run (its newest checkpoint: " +
                             fs::path(checkpoint).filename().string() +
                             "); pass --resume to continue it, --overwrite to replace it, or "
                             "choose another --out");
  // Only what a run writes goes: checkpoints, "latest", "best" and their leftovers.
  for (const auto& entry : fs::directory_iterator(run_dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("step-", 0) == 0 || name.rfind("latest", 0) == 0 ||
        name.rfind("best", 0) == 0)
      fs::remove_all(entry.path());
  }
}

}  // namespace atencion::examples
