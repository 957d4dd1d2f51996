// tensor/durable_write.cpp — see durable_write.h.
#include "tensor/durable_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace atencion {
namespace {

std::runtime_error failure(const std::string& path, const std::string& problem, int error) {
  return std::runtime_error(path + ": " + problem + ": " + std::strerror(error));
}

int create_new(const std::string& name) {
  return ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

std::string directory_of(const std::string& path) {
  const std::string directory = std::filesystem::path(path).parent_path().string();
  return directory.empty() ? "." : directory;
}

}  // namespace

std::string temporary_name(const std::string& path) {
  return path + ".tmp-" + std::to_string(::getpid());
}

void fsync_directory(const std::string& dir) {
  const int descriptor = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (descriptor < 0) return;
  ::fsync(descriptor);
  ::close(descriptor);
}

std::string rename_aside(const std::string& path) {
  const std::string aside = temporary_name(path) + "-removed";
  std::filesystem::rename(path, aside);
  fsync_directory(directory_of(path));
  return aside;
}

DurableFile::DurableFile(const std::string& path) : path_(path), temporary_(temporary_name(path)) {
  descriptor_ = create_new(temporary_);
  int error = errno;
  // A leftover under our temporary name (a process of the same id killed earlier, or a link
  // planted there): unlink(2) removes the name itself, never what a link points to.
  if (descriptor_ < 0 && error == EEXIST && ::unlink(temporary_.c_str()) == 0) {
    descriptor_ = create_new(temporary_);
    error = errno;
  }
  if (descriptor_ < 0) throw failure(path_, "cannot create " + temporary_, error);
}

DurableFile::~DurableFile() {
  if (descriptor_ >= 0) abandon();
}

void DurableFile::abandon() {
  ::close(descriptor_);
  descriptor_ = -1;
  ::unlink(temporary_.c_str());
}

void DurableFile::write(const char* bytes, std::size_t count) {
  std::size_t done = 0;
  while (done < count) {
    const ssize_t wrote = ::write(descriptor_, bytes + done, count - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      const int error = wrote < 0 ? errno : ENOSPC;
      abandon();
      throw failure(path_, "cannot write " + temporary_ + " (disk full?)", error);
    }
    done += static_cast<std::size_t>(wrote);
  }
}

void DurableFile::commit() {
  const bool synced = ::fsync(descriptor_) == 0;
  const int sync_error = errno;
  const bool closed = ::close(descriptor_) == 0;
  const int close_error = errno;
  descriptor_ = -1;
  if (!synced || !closed) {
    ::unlink(temporary_.c_str());
    throw failure(path_, "cannot write " + temporary_, synced ? close_error : sync_error);
  }
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int rename_error = errno;
    ::unlink(temporary_.c_str());
    throw failure(path_, "cannot replace it with " + temporary_, rename_error);
  }
  fsync_directory(directory_of(path_));
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  DurableFile file(path);
  file.write(bytes.data(), bytes.size());
  file.commit();
}

}  // namespace atencion
