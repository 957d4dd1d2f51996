// examples/translate/checkpoint.h — a trained translator on disk, safe against interruption.
// Lesson: docs/12-translation.md#checkpoints
//
// A run directory (--out) holds numbered checkpoints and a pointer to the newest one:
//
//   runs/spa-eng/
//     latest                    one line: "step-00001200"
//     step-00001200/
//       config.json             the model's TransformerConfig and the run's settings
//       model.safetensors       the parameters (Module::state_dict names)
//       optimizer.safetensors   Adam's moments and step counts
//       trainer.json            step, data position, training seconds, loss history
//       source.model            the Spanish SentencePiece model (its vocabulary inside)
//       target.model            the English one
//
// A checkpoint is written into "step-N.tmp-<pid>", which is renamed to "step-N" once every
// file is complete; then "latest" is replaced by a temporary file and a rename. Killing the
// program at any moment (kill -9 included) therefore leaves "latest" naming a whole
// checkpoint: the old one or the new one. Older checkpoints beyond the newest `keep` are
// removed afterwards.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tensor/safetensors.h"

namespace atencion::translate {

// What a checkpoint holds, as plain data; the program turns it into modules and back.
struct CheckpointData {
  std::string directory;       // where load_checkpoint found it ("" when built in memory)
  nlohmann::json config;       // config.json
  NamedTensors model;          // model.safetensors
  NamedTensors optimizer;      // optimizer.safetensors (empty for a model saved without one)
  nlohmann::json trainer;      // trainer.json
  std::string source_tokenizer;  // bytes of source.model
  std::string target_tokenizer;  // bytes of target.model
};

// Writes checkpoint `step` into `run_dir` (created if missing) and points "latest" at it.
// Returns the checkpoint's directory.
std::string save_checkpoint(const std::string& run_dir, int64_t step, const CheckpointData& data,
                            int keep = 2);

// `path` is a run directory (its "latest" is followed) or one checkpoint directory. Throws
// std::runtime_error naming the directory and the missing or bad file; a bad safetensors file
// is reported by load_safetensors with the tensor and byte offset.
CheckpointData load_checkpoint(const std::string& path);

// The checkpoint directory `path` stands for: `path` itself if it holds a config.json, else the
// one "latest" names, else (no "latest", or it names a checkpoint that is gone) the newest
// whole "step-N" directory; "" when there is none.
std::string resolve_checkpoint(const std::string& path);

// Writes `bytes` to `path` through a temporary file, fsync and rename.
void write_file_atomically(const std::string& path, const std::string& bytes);
std::string read_file(const std::string& path);

}  // namespace atencion::translate
