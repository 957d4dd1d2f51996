// examples/bert/commands/train.cpp — `atencion-bert train`: its options, each one a field of
// TrainOptions (bert/train.h), whose defaults are the only ones; --init-from and --bert start
// from weights (bert/start_from_weights.h).
// Lesson: docs/16-bert.md#train-one
#include <memory>

#include "base/cli/validators.h"
#include "base/finetune/finetune_options.h"
#include "base/finetune/from_weights.h"
#include "base/training/session_options.h"
#include "bert/commands/commands.h"
#include "bert/train.h"

namespace atencion::examples::bert {
namespace {

void add_run_options(CLI::App* command, RunConfig& run) {
  command->add_option("--text", run.text_path,
                      "UTF-8 text, a sentence a line (default: the Spanish side of the shipped "
                      "Tatoeba pairs)")
      ->check(CLI::ExistingFile)->check(regular_file());
  auto* init_from = command->add_option("--init-from", run.init_from,
                                        "start from the weights of a run of ours (or its step-N)")
                        ->check(CLI::ExistingDirectory);
  command->add_option("--bert", run.bert_dir,
                      "start from a directory as Hugging Face publishes BERT (model.safetensors "
                      "with the masked-LM head, vocab.txt, config.json)")
      ->check(CLI::ExistingDirectory)->excludes(init_from);
  command->add_option("--vocab", run.vocab_size, "SentencePiece vocabulary size")
      ->capture_default_str()->check(at_least(6));
  command->add_option("--max-tokens", run.max_tokens, "padded pieces per batch")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--warmup", run.warmup_steps, "warm-up steps")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--lr-factor", run.lr_factor, "factor of the warm-up schedule")
      ->capture_default_str()->check(at_least(0, true));
  command->add_option("--seed", run.seed)->capture_default_str()->check(seed_number());
}

void add_model_options(CLI::App* command, BertConfig& model) {
  command->add_option("--hidden", model.hidden)->capture_default_str()->check(at_least(1));
  command->add_option("--heads", model.heads)->capture_default_str()->check(at_least(1));
  command->add_option("--layers", model.layers)->capture_default_str()->check(at_least(1));
  command->add_option("--intermediate", model.intermediate)
      ->capture_default_str()->check(at_least(1));
  command->add_option("--max-positions", model.max_positions)
      ->capture_default_str()->check(CLI::Range(int64_t{3}, int64_t{512}));
  command->add_option("--dropout", model.dropout)
      ->capture_default_str()->check(CLI::Range(0.0, 0.99));
}

}  // namespace

Subcommand add_train_command(CLI::App& app, nn::distributed::Communicator& communicator) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* command = app.add_subcommand("train", "pre-train a masked language model on a text");
  add_session_options(command, options->trainer);
  add_run_options(command, options->run);
  add_model_options(command, options->model);
  add_schedule_options(command, options->finetune, /*warmup_flag=*/false);
  return {command, [options, command, &communicator] {
            RunConfig& run = options->run;
            const bool from_weights = !run.init_from.empty() || !run.bert_dir.empty();
            options->model_flags =
                given_options(*command, {"--hidden", "--heads", "--layers", "--intermediate",
                                         "--max-positions", "--dropout", "--vocab"});
            // A run from weights is a fine-tune: there --warmup is its schedule's (its default,
            // FineTuneSettings', when not given).
            settle_fine_tune_flags(*command, from_weights, "--init-from DIR or --bert DIR",
                                   run.init_from, run.warmup_steps, options->finetune);
            if (!from_weights && options->model.hidden % options->model.heads != 0)
              throw std::invalid_argument("train: --hidden " + std::to_string(options->model.hidden) +
                                          " is not a multiple of --heads " +
                                          std::to_string(options->model.heads));
            train(*options, communicator);
          }};
}

}  // namespace atencion::examples::bert
