// examples/translate/main.cpp — `atencion-translate`: train, translate, eval, show.
// Lesson: docs/12-translation.md
//
//   atencion-translate train [--minutes 9] [--data pairs.tsv] [--out runs/spa-eng] [--resume]
//   atencion-translate translate --model runs/spa-eng "¿Cuál es tu nombre?"   (or lines on stdin)
//   atencion-translate eval --model runs/spa-eng [--data pairs.tsv] [--beam 4]
//   atencion-translate show --model runs/spa-eng [--html] "¿Cuál es tu nombre?" [more sentences]
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "cli_checks.h"
#include "commands.h"
#include "nn/distributed.h"
#include "tensor/threads.h"
#include "train.h"

using namespace atencion::translate;
namespace nn = atencion::nn;

// A number of at least `lowest` (or above it, when `strictly`), refused in a short message
// (CLI11's NonNegativeNumber prints DBL_MAX in its own).
CLI::Validator at_least(long long lowest, bool strictly = false) {
  const std::string bound = (strictly ? "above " : "at least ") + std::to_string(lowest);
  return CLI::Validator(
      [lowest, strictly, bound](std::string& text) {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) return "'" + text + "' is not a number";
        const bool fine = strictly ? value > static_cast<double>(lowest)
                                   : value >= static_cast<double>(lowest);
        return fine ? std::string() : "must be " + bound + ", not " + text;
      },
      bound);
}

int main(int argc, char** argv) {
  // Under mpirun, this process is one of N (docs/13-data-parallel.md); otherwise rank 0 of 1.
  nn::distributed::Communicator communicator;
  CLI::App app{"atencion-translate: a Spanish→English Transformer, trained on your CPU"};
  app.require_subcommand(1);
  app.fallthrough();  // --threads before or after the subcommand
  // Misuse is refused in one line, before any work (docs/12-translation.md#the-program).
  app.failure_message([](const CLI::App*, const CLI::Error& error) {
    return std::string("atencion-translate: ") + error.what() + " (see --help)\n";
  });
  int threads = 0;
  app.add_option("--threads", threads, "threads for the kernels (default: OMP_NUM_THREADS or all cores)")
      ->check(CLI::Range(int64_t{1}, kMostThreads));

  TrainOptions train_options;
  auto* train_command = app.add_subcommand("train", "train a model on Spanish<TAB>English pairs");
  train_command->add_option("--data", train_options.data_path, "pairs file (default: the shipped Tatoeba pairs)")
      ->check(CLI::ExistingFile);
  train_command->add_option("--out", train_options.out_dir, "run directory for checkpoints")->capture_default_str();
  train_command->add_option("--minutes", train_options.minutes, "time budget in minutes (0: none)")->capture_default_str()
      ->check(at_least(0));
  train_command->add_option("--epochs", train_options.epochs, "epochs (0: until the time budget ends)")->capture_default_str()
      ->check(at_least(0));
  train_command->add_option("--steps", train_options.steps,
                            "stop at this optimizer step, resumed ones included (0: no limit)")
      ->capture_default_str()->check(at_least(0));
  auto* resume_flag = train_command->add_flag(
      "--resume", train_options.resume, "continue from the run directory's latest checkpoint");
  train_command
      ->add_flag("--overwrite", train_options.overwrite, "replace the run the --out directory holds")
      ->excludes(resume_flag);
  train_command->add_option("--checkpoint-every", train_options.checkpoint_every,
                            "steps between checkpoints (0: only at the end)")->capture_default_str()
      ->check(at_least(0));
  train_command->add_option("--log-every", train_options.log_every, "steps between progress lines")->capture_default_str()
      ->check(at_least(1));
  train_command->add_option("--max-words", train_options.max_words, "longest pair side kept, in words")->capture_default_str()
      ->check(at_least(1));
  train_command->add_option("--vocab", train_options.vocab_size, "SentencePiece vocabulary size per language")->capture_default_str()
      ->check(at_least(1));
  train_command->add_option("--max-tokens", train_options.max_tokens, "tokens per batch (B · longest)")->capture_default_str()
      ->check(at_least(1));
  train_command->add_option("--warmup", train_options.warmup_steps, "warm-up steps")->capture_default_str()
      ->check(at_least(1));
  train_command->add_option("--lr-factor", train_options.lr_factor, "factor of the warm-up schedule")->capture_default_str()
      ->check(at_least(0, true));
  train_command->add_option("--label-smoothing", train_options.label_smoothing)->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  train_command->add_option("--seed", train_options.seed)->capture_default_str();
  auto& model = train_options.model;
  model.d_model = 256;
  model.heads = 4;
  model.encoder_layers = 2;
  model.decoder_layers = 2;
  model.d_ff = 1024;
  model.dropout = 0.1;
  model.max_len = 128;
  train_command->add_option("--d-model", model.d_model)->capture_default_str()->check(at_least(1));
  train_command->add_option("--heads", model.heads)->capture_default_str()->check(at_least(1));
  train_command->add_option("--encoder-layers", model.encoder_layers)->capture_default_str()->check(at_least(1));
  train_command->add_option("--decoder-layers", model.decoder_layers)->capture_default_str()->check(at_least(1));
  train_command->add_option("--d-ff", model.d_ff)->capture_default_str()->check(at_least(1));
  train_command->add_option("--dropout", model.dropout)->capture_default_str()->check(CLI::Range(0.0, 0.99));
  train_command->add_flag("--pre-norm", model.norm_first, "LayerNorm before each sublayer (default: after, as the paper)");
  train_command->add_flag("--tie-embeddings", model.tie_target_embeddings, "share target embedding and output weights");

  std::string model_dir = "runs/spa-eng";
  nn::DecodeOptions decode = decode_options(1, 64);
  auto add_decode_options = [&](CLI::App* command) {
    command->add_option("--model", model_dir, "run or checkpoint directory")->capture_default_str();
    command->add_option("--beam", decode.beam, "beam width (1: greedy)")->capture_default_str()
        ->check(CLI::Range(int64_t{1}, kLargestBeam));
    command->add_option("--max-length", decode.max_length, "longest translation, in pieces")->capture_default_str()
        ->check(CLI::Range(int64_t{1}, kLongestMaxLen));
    command->add_option("--batch-size", decode.batch_size, "sentences decoded at once")->capture_default_str()
        ->check(CLI::Range(int64_t{1}, kLargestBatch));
  };
  std::vector<std::string> sentences;
  auto* translate_command = app.add_subcommand("translate", "translate sentences (arguments, or one per line on stdin)");
  add_decode_options(translate_command);
  translate_command->add_option("sentences", sentences, "Spanish sentences");

  EvalOptions eval_options;
  auto* eval_command = app.add_subcommand("eval", "BLEU, exact match and samples on a test set");
  add_decode_options(eval_command);
  eval_command->add_option("--data", eval_options.data_path, "pairs file (default: the run's test split)")
      ->check(CLI::ExistingFile);
  eval_command->add_option("--samples", eval_options.samples)->capture_default_str()->check(at_least(0));
  eval_command->add_option("--limit", eval_options.limit, "score only the first N pairs")->capture_default_str()
      ->check(at_least(0));

  ShowOptions show_options;
  auto* show_command = app.add_subcommand("show", "attention heat maps and training curves as SVG");
  show_command->add_option("--model", model_dir)->capture_default_str();
  show_command->add_option("--out", show_options.out_dir, "where to write (default: <model>/show)");
  show_command->add_flag("--html", show_options.html,
                         "also explorer.html: every sentence's maps and the curves in one page");
  show_command->add_option("sentences", show_options.sentences,
                           "Spanish sentences (the SVGs are of the first)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);  // prints the message (or --help)
    // A process that stopped before the others would leave them waiting in a collective.
    if (status != 0 && communicator.size() > 1)
      communicator.abort(std::string("atencion-translate: ") + error.what(), status);
    return status;
  }
  try {
    if (threads > 0) atencion::set_num_threads(threads);
    if (*train_command) {
      std::vector<std::string> given;  // the flags typed, to compare with a resumed checkpoint
      for (const CLI::Option* option : train_command->get_options())
        if (option->count() > 0) given.push_back(option->get_name());
      refuse_flags_contradicting_checkpoint(train_options, given);
      train(train_options, communicator);
    } else if (*translate_command) {
      const Translator translator = Translator::from_checkpoint(load_checkpoint(model_dir));
      if (sentences.empty()) {
        // One sentence per line in, one translation per line out, nothing else on stdout.
        // From a terminal each line is answered as it comes; from a pipe or a file all lines
        // are read first and translated in length-sorted batches (the same translations, faster).
        const bool interactive = isatty(fileno(stdin)) != 0;
        std::vector<std::string> lines;
        for (std::string line; std::getline(std::cin, line);) {
          lines.push_back(std::move(line));
          if (!interactive) continue;
          std::cout << translate_lines(translator, lines, decode)[0] << "\n" << std::flush;
          lines.clear();
        }
        for (const auto& translation : translate_lines(translator, lines, decode))
          std::cout << translation << "\n";
      } else {
        for (const auto& translation : translate_sentences(translator, sentences, decode))
          std::cout << translation << "\n";
      }
    } else if (*eval_command) {
      eval_options.model_dir = model_dir;
      eval_options.decode = decode;
      evaluate(eval_options);
    } else if (*show_command) {
      show_options.model_dir = model_dir;
      for (const auto& path : show(show_options)) std::cout << "wrote " << path << "\n";
    }
  } catch (const std::exception& error) {
    // The other processes may be waiting for this one: end them all, with the message.
    if (communicator.size() > 1)
      communicator.abort(std::string("atencion-translate: ") + error.what());
    std::cerr << "atencion-translate: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
