// examples/translate/cli_checks.cpp — see cli_checks.h.
#include "cli_checks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <stdexcept>

#include "checkpoint.h"
#include "run_directory.h"
#include "translator.h"

namespace atencion::translate {
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
    {"--label-smoothing", "run", "label_smoothing"}, {"--seed", "run", "seed"},
    {"--d-model", "model", "d_model"},      {"--heads", "model", "heads"},
    {"--encoder-layers", "model", "encoder_layers"},
    {"--decoder-layers", "model", "decoder_layers"}, {"--d-ff", "model", "d_ff"},
    {"--dropout", "model", "dropout"},      {"--pre-norm", "model", "norm_first"},
    {"--tie-embeddings", "model", "tie_target_embeddings"}};

}  // namespace

void refuse_flags_contradicting_checkpoint(const TrainOptions& options,
                                           const std::vector<std::string>& given) {
  if (!options.resume && options.fresh_optimizer)
    throw std::runtime_error("train: --fresh-optimizer applies only with --resume");
  if (!options.resume) return;
  const std::string dir = checkpoint_to_resume(options.out_dir, options.resume_from);
  if (dir.empty()) return;
  const std::string config_path = (std::filesystem::path(dir) / "config.json").string();
  nlohmann::json stored;
  try {
    stored = nlohmann::json::parse(read_file(config_path));
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(config_path + ": bad JSON: " + error.what());
  }
  const nlohmann::json requested = {{"run", run_to_json(options)},
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

std::string not_a_seed(const std::string& text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  if (digits && error == std::errc() && stop == end) return "";
  return "must be a whole number from 0 to 18446744073709551615, not " + text;
}

}  // namespace atencion::translate
