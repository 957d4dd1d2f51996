// tensor/durable_write.h — writing a file so that a crash or a kill never leaves half of it.
// Lesson: docs/12-translation.md#checkpoints
//
// A file is written under a temporary name, "<path>.tmp-<pid>", created new (O_EXCL |
// O_NOFOLLOW: a link someone planted there is never written through), flushed to the disk
// (fsync), and only then renamed to `path`; rename(2) replaces whatever was at `path` in one
// step (a link there too, rather than following it). The directory is then flushed as well, so
// that the rename itself survives a power cut. A reader sees the old file or the new one, never
// a mix; a kill before the rename leaves only "<path>.tmp-<pid>", which the next writer removes.
//
// The one implementation for the whole project: tensor/safetensors.cpp (weights) and the
// examples' checkpoints, pointers ("latest", "best") and pages all write through it. It lives in
// tensor/, the lowest layer that writes a file, so that every layer above may call it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace atencion {

// "<path>.tmp-<pid>": the name a file (or a checkpoint directory) is made under before it is
// renamed to `path`. Another process's name differs; ours is reused after a kill.
std::string temporary_name(const std::string& path);

// fsync(2) of the directory `dir`, so that the renames and removals in it reach the disk. Best
// effort: some file systems refuse to flush a directory, and nothing is lost by going on.
void fsync_directory(const std::string& dir);

// Renames `path` (a file or a directory) to "<path>.tmp-<pid>-removed" and flushes its
// directory: from that moment it no longer counts under its name, and whatever removes it next
// may be interrupted (a leftover of that name is for the next writer to remove). Returns the
// new name. Throws std::filesystem::filesystem_error when the rename fails.
std::string rename_aside(const std::string& path);

// A file being written durably: created under temporary_name(path) by the constructor, filled
// by write(), and put at `path` by commit() (fsync, rename, fsync of the directory). Destroyed
// before commit() (an error, an exception between writes), it removes its temporary file:
// `path` keeps what it held before, and nothing is left beside it.
// Errors throw std::runtime_error "<path>: cannot create|write|replace ...: <reason>".
class DurableFile {
 public:
  explicit DurableFile(const std::string& path);
  ~DurableFile();
  DurableFile(const DurableFile&) = delete;
  DurableFile& operator=(const DurableFile&) = delete;

  void write(const char* bytes, std::size_t count);
  void commit();

  const std::string& temporary() const { return temporary_; }

 private:
  void abandon();  // closes and removes the temporary file

  std::string path_;
  std::string temporary_;
  int descriptor_ = -1;
};

// DurableFile(path), one write of `bytes`, commit().
void write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace atencion
