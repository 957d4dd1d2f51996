// examples/base/checkpoints/checkpoint.h — a trained model on disk, safe against interruption:
// the same for every model family (the translator's run shown).
// Lesson: docs/12-translation.md#checkpoints
//
// A run directory (--out) holds numbered checkpoints and a pointer to the newest one:
//
//   runs/spa-eng/
//     lock                      held (flock) by the trainer writing here; see run_directory.h
//     latest                    one line: "step-00001200"
//     best                      one line: the checkpoint with the lowest dev loss
//     step-00001200/
//       config.json             the model's TransformerConfig and the run's settings
//       model.safetensors       the parameters (Module::state_dict names)
//       optimizer.safetensors   Adam's moments and step counts
//       trainer.json            step, data position, training seconds, loss history
//       source.model            the family's own files (CheckpointData::files): here the
//       target.model            translator's Spanish and English SentencePiece models
//       manifest.json           each file above: its size and CRC-32C (checksum.h)
//
// A checkpoint is written into "step-N.tmp-<pid>", which is renamed to "step-N" once every
// file is complete; then "latest" is replaced by a temporary file and a rename. Killing the
// program at any moment (kill -9 included) therefore leaves "latest" naming a whole
// checkpoint: the old one or the new one. Older checkpoints beyond the newest `keep` are
// removed afterwards (renamed to a temporary name first, so a half-removed one never looks
// whole), except the one "best" names. load_checkpoint checks every file against the manifest
// and refuses a damaged one by name; nothing holding a NaN or an infinity is written or loaded.
//
// config.json records the checkpoint format (kCheckpointFormat, under "checkpoint_format").
// A checkpoint of this format without its manifest is refused (its files cannot be checked);
// one written before formats were recorded loads without a manifest, with one line on stderr
// saying that it is unchecked. Every file is read only if it is a regular file (file_checks.h).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/io/file_checks.h"
#include "nlohmann/json.hpp"
#include "tensor/safetensors.h"

namespace atencion::examples {

// The format save_checkpoint writes: 2 = config.json names it and manifest.json is required.
// (1, never written down: the checkpoints from before, with or without a manifest.)
constexpr int64_t kCheckpointFormat = 2;

// What a checkpoint holds, as plain data; the program turns it into modules and back.
struct CheckpointData {
  std::string directory;       // where load_checkpoint found it ("" when built in memory)
  nlohmann::json config;       // config.json
  NamedTensors model;          // model.safetensors
  NamedTensors optimizer;      // optimizer.safetensors (empty for a model saved without one)
  nlohmann::json trainer;      // trainer.json
  // The model family's own files, by name, e.g. its tokenizers (the translator's source.model
  // and target.model); plain names beside the common files, listed in the manifest like them.
  std::map<std::string, std::string> files;
};

// What save_checkpoint throws, writing nothing, when a model or optimizer tensor holds a NaN or
// an infinity: `found` says which, "model tensor 'w' element 3 is nan".
struct NonFiniteTensor : std::runtime_error {
  NonFiniteTensor(const std::string& message, std::string found_)
      : std::runtime_error(message), found(std::move(found_)) {}
  std::string found;
};

// Writes checkpoint `step` into `run_dir` (created if missing) and points "latest" at it.
// Returns the checkpoint's directory. Throws NonFiniteTensor before writing anything when a
// tensor of data.model or data.optimizer is not finite (the one scan of them per save).
std::string save_checkpoint(const std::string& run_dir, int64_t step, const CheckpointData& data,
                            int keep = 2);

// `path` is a run directory (its "latest" is followed) or one checkpoint directory. Throws
// std::runtime_error naming the directory and the missing or bad file; a bad safetensors file
// is reported by load_safetensors with the tensor and byte offset. Says on stderr, unless
// `quiet` (the other processes of a data-parallel run), when it passed over a newer incomplete
// checkpoint, or loads one unchecked.
CheckpointData load_checkpoint(const std::string& path, bool quiet = false);

// The checkpoint directory `path` stands for: `path` itself if it holds a config.json, else the
// one "latest" names, else (no "latest", or it names a checkpoint that is gone) the newest
// whole "step-N" directory; "" when there is none.
std::string resolve_checkpoint(const std::string& path);

// resolve_checkpoint's choice, and what it passed over: the latest "step-N" directory later
// than the choice that is not a whole checkpoint (it has no config.json: a "step-N" name is
// only ever made by renaming a whole one, so it was damaged), or "".
struct CheckpointChoice {
  std::string directory;
  std::string skipped;
};
CheckpointChoice choose_checkpoint(const std::string& path);

// "step-" and 8 or more digits: the name of a checkpoint directory.
bool is_checkpoint_name(const std::string& name);
// What a killed save, rotation or lock probe leaves in a run directory: "<name>.tmp-<pid>" or
// "<name>.tmp-<pid>-removed", where <name> is a checkpoint's, "latest", "best" or "lock".
bool is_leftover_name(const std::string& name);

// "" if every Float32/Float64 element of `tensors` is finite, else which is not:
// "'encoder.weight' element 12 is nan".
std::string first_non_finite(const NamedTensors& tensors);

// Writes `dir`/manifest.json: the size and CRC-32C of each checkpoint file there.
void write_manifest(const std::string& dir);
// Throws std::runtime_error naming the file of checkpoint `dir` whose size or CRC-32C differs
// from manifest.json, or that is not a regular file. Without a manifest: refused when
// config.json records a format (kCheckpointFormat has one always); a checkpoint from before
// formats passes, and the returned line says that it is unchecked ("" otherwise).
std::string verify_checkpoint_files(const std::string& dir);

// For the kill tests (tests/examples/checkpoint_kill_points.sh): when the environment variable
// ATENCION_TEST_KILL_AT is "<point>" or "<point>@<n>", the process kills itself (SIGKILL) the
// first (n-th) time it reaches `point`. Points in save_checkpoint: wrote-config, wrote-model,
// wrote-tokenizers, wrote-manifest, renamed, wrote-latest, wrote-best, rotation-renamed,
// rotated; in prepare_run_directory (run_directory.h): overwrite-renamed (after each old
// checkpoint is renamed aside).
void test_kill_point(const std::string& point);

}  // namespace atencion::examples
