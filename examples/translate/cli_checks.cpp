// examples/translate/cli_checks.cpp — see cli_checks.h.
#include "translate/cli_checks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "base/checkpoints/checkpoint.h"
#include "base/checkpoints/run_directory.h"
#include "translate/translator.h"

namespace atencion::examples::translate {
namespace {

// Each flag of `train` that a checkpoint fixes, with its place in config.json.
struct CheckpointedFlag {
  const char* flag;
  const char* section;
  const char* key;
};
constexpr CheckpointedFlag kCheckpointedFlags[] = {
    {"--data", "run", "data_path"},         {"--max-words", "run", "max_words"},
    {"--vocab", "run", "vocab_size"},       {"--max-tokens", "run", "max_tokens"},
    {"--warmup", "run", "warmup_steps"},    {"--lr-factor", "run", "lr_factor"},
    {"--schedule", "run", "schedule"},      {"--lr-floor", "run", "lr_floor"},
    {"--ema", "run", "ema"},
    {"--label-smoothing", "run", "label_smoothing"}, {"--seed", "run", "seed"},
    {"--d-model", "model", "d_model"},      {"--heads", "model", "heads"},
    {"--encoder-layers", "model", "encoder_layers"},
    {"--decoder-layers", "model", "decoder_layers"}, {"--d-ff", "model", "d_ff"},
    {"--dropout", "model", "dropout"},      {"--pre-norm", "model", "norm_first"},
    {"--tie-embeddings", "model", "tie_target_embeddings"}};

}  // namespace

void refuse_flags_contradicting_checkpoint(const TrainOptions& options,
                                           const std::vector<std::string>& given) {
  const TrainerOptions& trainer = options.trainer;
  if (!trainer.resume && trainer.fresh_optimizer)
    throw std::runtime_error("train: --fresh-optimizer applies only with --resume");
  if (!trainer.resume) return;
  const std::string dir = checkpoint_to_resume(trainer.out_dir, trainer.resume_from);
  if (dir.empty()) return;
  const std::string config_path = (std::filesystem::path(dir) / "config.json").string();
  nlohmann::json stored;
  try {
    stored = with_schedule_of_older_runs(nlohmann::json::parse(read_file(config_path)));
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(config_path + ": bad JSON: " + error.what());
  }
  const nlohmann::json requested = {{"run", options.run},
                                    {"model", config_to_json(options.model)}};
  for (const auto& flag : kCheckpointedFlags) {
    if (std::find(given.begin(), given.end(), flag.flag) == given.end()) continue;
    const nlohmann::json& wanted = requested.at(flag.section).at(flag.key);
    const nlohmann::json found =
        stored.contains(flag.section) ? stored[flag.section].value(flag.key, nlohmann::json())
                                      : nlohmann::json();
    if (found != wanted)
      throw std::runtime_error("train --resume: " + std::string(flag.flag) + " " + wanted.dump() +
                               " contradicts the checkpoint (" + flag.key + " " + found.dump() +
                               " in " + config_path +
                               "); leave the flag out, or start a new run with another --out");
  }
}

void refuse_unreadable_stdin() {
  struct stat status {};
  if (::fstat(STDIN_FILENO, &status) == 0 && S_ISDIR(status.st_mode))
    throw std::runtime_error("translate: standard input is a directory; give the sentences as "
                             "arguments, or one per line on standard input");
}

}  // namespace atencion::examples::translate
