// examples/translate/commands/train.cpp — `atencion-translate train`: its options, each one a
// field of TrainOptions (translate/train.h), whose defaults are the only ones.
// Lesson: docs/12-translation.md#the-program
#include <memory>

#include "base/training/session_options.h"
#include "base/cli/validators.h"
#include "translate/cli_checks.h"
#include "translate/commands/commands.h"
#include "translate/train.h"

namespace atencion::examples::translate {
namespace {

// A decay: below 1 (at_least(0) refuses what is below 0).
CLI::Validator below_one() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) return "'" + text + "' is not a number";
        return value < 1 ? std::string() : "must be below 1, not " + text;
      },
      "below 1");
}

// What defines the run (RunConfig, config.json's "run"): fixed once it starts.
void add_run_options(CLI::App* command, RunConfig& run) {
  command->add_option("--data", run.data_path, "pairs file (default: the shipped Tatoeba pairs)")
      ->check(CLI::ExistingFile)->check(regular_file());
  command->add_option("--max-words", run.max_words, "longest pair side kept, in words")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--vocab", run.vocab_size, "SentencePiece vocabulary size per language")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--max-tokens", run.max_tokens, "tokens per batch (B · longest)")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--warmup", run.warmup_steps, "warm-up steps")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--lr-factor", run.lr_factor, "factor of the warm-up schedule")
      ->capture_default_str()->check(at_least(0, true));
  command->add_option("--schedule", run.schedule,
                      "after the peak: inverse-sqrt (1/sqrt(step), the paper's) or linear (down "
                      "to --lr-floor at the last step of --steps, --epochs or --minutes)")
      ->capture_default_str()->check(
          CLI::IsMember(std::vector<std::string>(std::begin(kSchedules), std::end(kSchedules))));
  command->add_option("--lr-floor", run.lr_floor,
                      "with --schedule linear: the rate at the last step, a share of the peak")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  command->add_option("--ema", run.ema,
                      "decay of a moving average of the weights, which the dev loss and the "
                      "checkpoint's model are (0: none; e.g. 0.999)")
      ->capture_default_str()->check(at_least(0))->check(below_one());
  command->add_option("--label-smoothing", run.label_smoothing)
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  command->add_option("--seed", run.seed)->capture_default_str()->check(seed_number());
}

// The model's shape (config.json's "model"): fixed once the run starts.
void add_model_options(CLI::App* command, nn::TransformerConfig& model) {
  command->add_option("--d-model", model.d_model)->capture_default_str()->check(at_least(1));
  command->add_option("--heads", model.heads)->capture_default_str()->check(at_least(1));
  command->add_option("--encoder-layers", model.encoder_layers)
      ->capture_default_str()->check(at_least(1));
  command->add_option("--decoder-layers", model.decoder_layers)
      ->capture_default_str()->check(at_least(1));
  command->add_option("--d-ff", model.d_ff)->capture_default_str()->check(at_least(1));
  command->add_option("--dropout", model.dropout)
      ->capture_default_str()->check(CLI::Range(0.0, 0.99));
  command->add_flag("--pre-norm", model.norm_first,
                    "LayerNorm before each sublayer (default: after, as the paper)");
  command->add_flag("--tie-embeddings", model.tie_target_embeddings,
                    "share target embedding and output weights");
}

}  // namespace

Subcommand add_train_command(CLI::App& app, nn::distributed::Communicator& communicator) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* command = app.add_subcommand("train", "train a model on Spanish<TAB>English pairs");
  add_session_options(command, options->trainer);
  add_run_options(command, options->run);
  add_model_options(command, options->model);
  return {command, [options, command, &communicator] {
            std::vector<std::string> given;  // the flags typed, to compare with a checkpoint
            for (const CLI::Option* option : command->get_options())
              if (option->count() > 0) given.push_back(option->get_name());
            refuse_flags_contradicting_checkpoint(*options, given);
            train(*options, communicator);
          }};
}

}  // namespace atencion::examples::translate
