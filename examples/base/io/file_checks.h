// examples/base/io/file_checks.h — reading and writing files so that a link, a FIFO or a
// device can do no harm.
// Lesson: docs/12-translation.md#checkpoints
//
// Reading: every file the program reads is a regular file whose size is known before the first
// byte is read. A FIFO would block forever and /dev/zero never ends; both are refused by name.
// The file is opened with O_NONBLOCK (opening a FIFO then does not wait for a writer) and
// fstat(2) of the open descriptor decides, so the file checked is the file read.
//
// Writing: tensor/durable_write.h (write_file_atomically, DurableFile), included here for the
// examples' writers. Every file the program makes is created new (O_CREAT | O_EXCL |
// O_NOFOLLOW): a link someone planted at that name is never written through. A file reaches its
// final name by rename(2), which replaces a link there rather than following it.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "tensor/durable_write.h"

namespace atencion::examples {

constexpr uint64_t kNoBound = std::numeric_limits<uint64_t>::max();

// "" when `path` (links followed) is a regular file; otherwise what it is instead, as the end
// of a sentence: "is a FIFO, not a regular file", "does not exist", "is a directory, not ...".
std::string not_a_regular_file(const std::string& path);

// A regular file open for reading, with its size; closed when it goes.
class RegularFile {
 public:
  // Throws std::runtime_error "<path>: ..." when the file cannot be opened or is not a regular
  // file (a FIFO, a device, a directory, a socket), or is larger than `max_bytes`.
  explicit RegularFile(const std::string& path, uint64_t max_bytes = kNoBound);
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  uint64_t size() const { return size_; }
  // Reads up to `count` bytes at the current position into `buffer`; returns how many (0 at
  // the end). Throws naming the file on a read error.
  size_t read_some(char* buffer, size_t count);

 private:
  std::string path_;
  int descriptor_ = -1;
  uint64_t size_ = 0;
};

// The bytes of the regular file `path` (at most `max_bytes`). Throws std::runtime_error naming
// the file when it is not one, is larger, or changes length while it is read.
std::string read_file(const std::string& path, uint64_t max_bytes = kNoBound);

}  // namespace atencion::examples
