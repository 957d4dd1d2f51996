// examples/base/io/file_checks.cpp — see file_checks.h.
#include "base/io/file_checks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace atencion::examples {
namespace {

// What a file that is not a regular one is, for messages.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

std::runtime_error failure(const std::string& path, const std::string& problem) {
  return std::runtime_error(path + ": " + problem);
}

}  // namespace

std::string not_a_regular_file(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0)
    return errno == ENOENT ? "does not exist" : std::string("cannot be read: ") + std::strerror(errno);
  if (S_ISREG(status.st_mode)) return "";
  return "is " + kind_of(status.st_mode) + ", not a regular file";
}

RegularFile::RegularFile(const std::string& path, uint64_t max_bytes) : path_(path) {
  // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; fstat then
  // refuses it. Reads from a regular file are not affected by the flag.
  descriptor_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (descriptor_ < 0)
    throw failure(path, errno == ENOENT ? "no such file"
                                        : std::string("cannot open: ") + std::strerror(errno));
  struct stat status {};
  if (::fstat(descriptor_, &status) != 0) {
    const int error = errno;
    ::close(descriptor_);
    throw failure(path, std::string("cannot open: ") + std::strerror(error));
  }
  if (!S_ISREG(status.st_mode)) {
    ::close(descriptor_);
    throw failure(path, "is " + kind_of(status.st_mode) +
                            ", not a regular file (reading it could block or never end)");
  }
  size_ = static_cast<uint64_t>(status.st_size);
  if (size_ > max_bytes) {
    ::close(descriptor_);
    throw failure(path, std::to_string(size_) + " bytes, more than the " +
                            std::to_string(max_bytes) + " such a file can hold");
  }
}

RegularFile::~RegularFile() {
  if (descriptor_ >= 0) ::close(descriptor_);
}

size_t RegularFile::read_some(char* buffer, size_t count) {
  while (true) {
    const ssize_t got = ::read(descriptor_, buffer, count);
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) throw failure(path_, std::string("read error: ") + std::strerror(errno));
  }
}

std::string read_file(const std::string& path, uint64_t max_bytes) {
  RegularFile file(path, max_bytes);
  std::string bytes(file.size(), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const size_t got = file.read_some(bytes.data() + done, bytes.size() - done);
    if (got == 0) break;
    done += got;
  }
  char extra = 0;
  if (done != bytes.size() || file.read_some(&extra, 1) != 0)
    throw failure(path, "changed size while being read (" + std::to_string(file.size()) +
                            " bytes when opened)");
  return bytes;
}

}  // namespace atencion::examples
