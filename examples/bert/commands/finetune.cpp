// examples/bert/commands/finetune.cpp — `atencion-bert finetune`: a classifier trained from a
// BERT's weights, with or without LoRA; and `atencion-bert pair-task`, which writes the shipped
// example task's files. Lesson: docs/18-finetuning.md
#include <memory>

#include "base/cli/validators.h"
#include "base/io/file_checks.h"
#include "base/training/session_options.h"
#include "bert/commands/commands.h"
#include "bert/finetune.h"
#include "bert/text.h"

namespace atencion::examples::bert {
namespace {

void add_base_options(CLI::App* command, ClassifierRun& run) {
  auto* bert = command->add_option("--bert", run.bert_dir,
                                   "start from a directory as Hugging Face publishes BERT")
                   ->check(CLI::ExistingDirectory);
  command->add_option("--init-from", run.init_from, "start from a run of `atencion-bert train`")
      ->check(CLI::ExistingPath)->excludes(bert);
  command->add_flag("--random-weights", run.random_weights,
                    "the base's shape and tokenizer with fresh weights (to compare)");
}

void add_task_options(CLI::App* command, ClassifierRun& run) {
  command->add_option("--data", run.data_path,
                      "label<TAB>text[<TAB>text] lines (default: the English-Spanish pair task)")
      ->check(CLI::ExistingFile)->check(regular_file());
  command->add_option("--held-out", run.held_out_path,
                      "held-out lines (default: 1 in 20 of --data, or the pair task's split)")
      ->check(CLI::ExistingFile)->check(regular_file());
  command->add_option("--train-pairs", run.pair_task.train_pairs, "the pair task's training pairs")
      ->capture_default_str()->check(at_least(2));
  command->add_option("--held-out-pairs", run.pair_task.held_out_pairs,
                      "the pair task's held-out pairs")->capture_default_str()->check(at_least(2));
  command->add_option("--task-seed", run.pair_task.seed, "seed of the pair task and the split")
      ->capture_default_str()->check(seed_number());
  command->add_option("--max-tokens", run.max_tokens, "padded pieces per batch")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--seed", run.seed, "seed of the head, the adapters, dropout and batches")
      ->capture_default_str()->check(seed_number());
}

void add_expected_shape_options(CLI::App* command, ExpectedShape& expected) {
  command->add_option("--hidden", expected.hidden, "refuse weights of another width")
      ->check(at_least(1));
  command->add_option("--heads", expected.heads, "refuse weights of another head count")
      ->check(at_least(1));
  command->add_option("--layers", expected.layers, "refuse weights of another depth")
      ->check(at_least(1));
}

struct PairTaskCommand {
  std::string out_dir = "data/pair-task";
  PairTaskOptions task;
};

void write_pair_task(const PairTaskCommand& options) {
  const PairTask task = translation_task(shipped_pairs(), options.task);
  std::filesystem::create_directories(options.out_dir);
  std::string text;
  for (const std::string& line : task.pretraining_text) text += line + "\n";
  write_file_atomically(options.out_dir + "/train.tsv", format_labelled(task.train));
  write_file_atomically(options.out_dir + "/held_out.tsv", format_labelled(task.held_out));
  write_file_atomically(options.out_dir + "/pretraining.txt", text);
  std::printf("%s: train.tsv (%zu lines), held_out.tsv (%zu lines), pretraining.txt (%zu lines)\n",
              options.out_dir.c_str(), task.train.size(), task.held_out.size(),
              task.pretraining_text.size());
}

}  // namespace

Subcommand add_finetune_command(CLI::App& app, nn::distributed::Communicator& communicator) {
  auto options = std::make_shared<FineTuneOptions>();
  CLI::App* command = app.add_subcommand(
      "finetune", "fine-tune a BERT to classify sentences or sentence pairs (LoRA or full)");
  add_session_options(command, options->trainer);
  add_base_options(command, options->run);
  add_task_options(command, options->run);
  add_finetune_options(command, options->finetune);
  add_expected_shape_options(command, options->expected);
  return {command, [options, &communicator] {
            if (!options->trainer.resume && options->run.bert_dir.empty() &&
                options->run.init_from.empty())
              throw std::invalid_argument("finetune: give the weights to start from: --bert DIR "
                                          "or --init-from RUN");
            finetune(*options, communicator);
          }};
}

Subcommand add_pair_task_command(CLI::App& app) {
  auto options = std::make_shared<PairTaskCommand>();
  CLI::App* command = app.add_subcommand(
      "pair-task", "write the English-Spanish pair task (train.tsv, held_out.tsv) and its "
                   "pre-training text from the shipped Tatoeba pairs (CC BY 2.0 FR)");
  command->add_option("--out", options->out_dir, "directory")->capture_default_str();
  command->add_option("--train-pairs", options->task.train_pairs)
      ->capture_default_str()->check(at_least(2));
  command->add_option("--held-out-pairs", options->task.held_out_pairs)
      ->capture_default_str()->check(at_least(2));
  command->add_option("--task-seed", options->task.seed)->capture_default_str()->check(seed_number());
  return {command, [options] { write_pair_task(*options); }};
}

}  // namespace atencion::examples::bert
