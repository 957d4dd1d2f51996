// examples/gpt/commands/train.cpp — `atencion-gpt train`: its options, each one a field of
// TrainOptions (gpt/train.h), whose defaults are the only ones.
// Lesson: docs/15-gpt.md#training
#include <memory>

#include "base/checkpoints/checkpoint.h"
#include "base/finetune/finetune_options.h"
#include "base/finetune/from_weights.h"
#include "base/training/session_options.h"
#include "base/cli/validators.h"
#include "gpt/commands/commands.h"
#include "gpt/train.h"

namespace atencion::examples::gpt {
namespace {

// What defines the run (RunConfig, config.json's "run"): fixed once it starts.
void add_run_options(CLI::App* command, RunConfig& run) {
  command->add_option("--task", run.task,
                      "text: a language model of --text; translate: the Spanish-English pairs as "
                      "instructions, the loss on the answers only")
      ->capture_default_str()->check(CLI::IsMember({"text", "translate"}));
  command->add_option("--text", run.text_path,
                      "a UTF-8 text file (default: the English side of the shipped pairs); with "
                      "--task translate, a TSV of spanish<TAB>english (default: the shipped pairs)")
      ->check(regular_file());
  command->add_option("--max-words", run.max_words,
                      "--task translate: longest pair side kept, in words (0: all)")
      ->capture_default_str()->check(at_least(0));
  auto* init_from = command->add_option("--init-from", run.init_from,
                                        "start from the weights of a run of ours (or its step-N)")
                        ->check(CLI::ExistingDirectory);
  command->add_option("--gpt2", run.gpt2,
                      "start from GPT-2's files (model.safetensors, config.json, tokenizer files)")
      ->check(CLI::ExistingDirectory)->excludes(init_from);
  command->add_option("--tokenizer", run.tokenizer, "bytes, or sentencepiece (trained here)")
      ->capture_default_str()->check(CLI::IsMember({"bytes", "sentencepiece"}));
  command->add_option("--vocab", run.vocab_size, "SentencePiece vocabulary size")
      ->capture_default_str()->check(at_least(8));
  command->add_option("--batch-size", run.batch_size, "windows of --context tokens a step")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--eval-tokens", run.eval_tokens,
                      "held-out predictions scored at each checkpoint (0: all)")
      ->capture_default_str()->check(at_least(0));
  command->add_option("--warmup", run.warmup_steps, "warm-up steps")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--lr-factor", run.lr_factor, "factor of the warm-up schedule")
      ->capture_default_str()->check(at_least(0, true));
  command->add_option("--seed", run.seed)->capture_default_str()->check(seed_number());
}

// The model's shape (config.json's "model"): fixed once the run starts.
void add_model_options(CLI::App* command, GPTConfig& model) {
  command->add_option("--context", model.context, "longest sequence, in tokens")
      ->capture_default_str()->check(CLI::Range(int64_t{2}, int64_t{1} << 16));
  command->add_option("--d-model", model.d_model)->capture_default_str()->check(at_least(1));
  command->add_option("--heads", model.heads)->capture_default_str()->check(at_least(1));
  command->add_option("--layers", model.layers)->capture_default_str()->check(at_least(1));
  command->add_option("--dropout", model.dropout)
      ->capture_default_str()->check(CLI::Range(0.0, 0.99));
}

}  // namespace

Subcommand add_train_command(CLI::App& app, nn::distributed::Communicator& communicator) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* command = app.add_subcommand("train", "train a GPT on a text");
  add_session_options(command, options->trainer);
  const size_t session_count = command->get_options().size();
  add_run_options(command, options->run);
  add_model_options(command, options->model);
  add_finetune_options(command, options->finetune, /*warmup_flag=*/false);
  return {command, [options, command, session_count, &communicator] {
            // On --resume the checkpoint defines the run and the model: a flag that would change
            // them is refused, not ignored.
            const auto all = command->get_options();
            for (size_t i = session_count; i < all.size() && options->trainer.resume; ++i)
              if (all[i]->count() > 0)
                throw std::invalid_argument(all[i]->get_name() + ": a resumed run keeps the "
                                            "settings of its checkpoint");
            options->model_flags =
                given_options(*command, {"--context", "--d-model", "--heads", "--layers",
                                         "--dropout", "--tokenizer", "--vocab"});
            RunConfig& run = options->run;
            // A run from weights is a fine-tune: there --warmup is its schedule's (its default,
            // FineTuneSettings', when not given).
            settle_fine_tune_flags(*command, !run.init_from.empty() || !run.gpt2.empty(),
                                   "--init-from DIR or --gpt2 DIR", run.init_from,
                                   run.warmup_steps, options->finetune);
            if (options->model.d_model % options->model.heads != 0)
              throw std::invalid_argument("--d-model " + std::to_string(options->model.d_model) +
                                          " is not a multiple of --heads " +
                                          std::to_string(options->model.heads));
            train(*options, communicator);
          }};
}

}  // namespace atencion::examples::gpt
