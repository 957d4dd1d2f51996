// tests/fuzz/fuzz_support.h — what the libFuzzer targets of tests/fuzz/ share: a scratch file
// per process, the checkpoint archive format, and the rule that every refusal is the loader's
// own error (anything else aborts, which libFuzzer reports as a crash and saves the input).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace atencion::fuzz {

// The scratch files and directories of this process, removed when it exits normally.
struct ScratchPaths {
  std::vector<std::string> paths;
  ~ScratchPaths() {
    std::error_code ignored;
    for (const std::string& path : paths) std::filesystem::remove_all(path, ignored);
  }
};

// A path under the temporary directory that only this process uses.
inline std::string scratch_path(const std::string& name) {
  static ScratchPaths scratch;
  scratch.paths.push_back((std::filesystem::temp_directory_path() /
                           ("atencion-fuzz-" + std::to_string(::getpid()) + "-" + name))
                              .string());
  return scratch.paths.back();
}

inline void write_bytes(const std::string& path, std::string_view bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file.flush()) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

// Aborts (a crash to libFuzzer) unless `error`'s message starts with `prefix`: a refusal must
// be the loader's own message naming the file, never an exception from deeper down.
inline void expect_own_error(const std::exception& error, const std::string& prefix) {
  if (std::string_view(error.what()).substr(0, prefix.size()) != prefix) {
    std::fprintf(stderr, "fuzz: an error that does not start with \"%s\": %s\n", prefix.c_str(),
                 error.what());
    std::abort();
  }
}

// A checkpoint directory as one fuzzer input: its files' bytes in the order of
// kCheckpointFiles, each followed by kFileSeparator (a missing tail of files is left out).
// tools/fuzz_seeds.sh packs a real checkpoint this way for the seed corpus.
inline constexpr const char* kCheckpointFiles[] = {"config.json", "trainer.json",
                                                   "model.safetensors", "source.model",
                                                   "target.model", "optimizer.safetensors"};
inline constexpr std::string_view kFileSeparator = "\n--atencion-fuzz-next-file--\n";

// Writes the files of `archive` into `directory` (created; files of an earlier call removed).
inline void unpack_checkpoint(std::string_view archive, const std::string& directory) {
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  for (const char* name : kCheckpointFiles) {
    if (archive.empty()) break;
    const std::size_t end = archive.find(kFileSeparator);
    write_bytes(directory + "/" + name, archive.substr(0, end));
    archive = end == std::string_view::npos ? std::string_view()
                                            : archive.substr(end + kFileSeparator.size());
  }
}

}  // namespace atencion::fuzz
