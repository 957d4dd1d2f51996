// examples/gpt/commands/commands.h — the subcommands of `atencion-gpt`, one file each:
// train.cpp, sample.cpp, eval.cpp, show.cpp, serve.cpp, merge.cpp. Each add_*_command adds its subcommand and options
// to the program's CLI::App and returns what runs it once the line is parsed.
// Lesson: docs/15-gpt.md#the-program
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "base/cli/program.h"
#include "gpt/generate.h"
#include "gpt/language_model.h"
#include "nn/distributed.h"

namespace atencion::examples::gpt {

Subcommand add_train_command(CLI::App& app, nn::distributed::Communicator& communicator);
Subcommand add_sample_command(CLI::App& app);
Subcommand add_eval_command(CLI::App& app);
Subcommand add_show_command(CLI::App& app);
Subcommand add_serve_command(CLI::App& app);  // serve.cpp: the playground (live.h)
Subcommand add_merge_command(CLI::App& app);  // merge.cpp: LoRA's adapters folded in

// Where sample, eval and show find the model: a checkpoint of train, or GPT-2's published files.
struct ModelSource {
  std::string model_dir = "runs/gpt";
  std::string gpt2_dir;  // "" = use model_dir
  std::string dtype = "float32";  // or "bf16": weights kept as bfloat16 (GPT::use_bfloat16_weights)
};
void add_model_source_options(CLI::App* command, ModelSource& source);
// The model of `source`, its weights in `source.dtype`; --dtype bf16 on a CPU without AVX2 and
// FMA is refused before loading, in one line naming `command`.
LanguageModel load_model(const ModelSource& source, const std::string& command);
// Decoding in float32 reads the weights' panels (GPT::use_packed_weights: the same bits, a second
// copy of the weights) where the model and the CPU allow it: float32 weights without LoRA
// adapters, a CPU with AVX2 and FMA. Otherwise the model is left as it is.
void pack_for_decoding(GPT& model);

struct SampleOptions {
  ModelSource source;
  std::string prompt;    // "" = stdin, or the start of a line when stdin is empty
  bool prompt_given = false;
  GenerateOptions generate;  // sampled, or by beam search (--beam)
  // Each line of the prompt is a Spanish sentence: print its translation by a model of
  // `train --task translate` (greedy, instructions.h), one a line.
  bool translate = false;
};
// Prints the prompt and then each token as it is drawn (beam search: its answer at the end);
// returns the generated text.
std::string sample(const SampleOptions& options);

struct EvalOptions {
  ModelSource source;
  std::string text_path;  // "" = the held-out split of the run the model was trained on
  int64_t batch_size = 16;
  int64_t limit = 0;      // a translate run: the first `limit` test pairs (0: all)
  int64_t samples = 3;    // a translate run: translations printed beside their reference
};
struct EvalResult {
  int64_t tokens = 0, bytes = 0;
  double loss = 0, perplexity = 0, bits_per_byte = 0;
};
EvalResult evaluate(const EvalOptions& options);
// A model of `train --task translate`: its run's test split translated (greedy, the answer
// after each "Spanish: … English:" prompt) and scored with corpus BLEU (base/data/bleu.h);
// prints the score and returns it.
double evaluate_translation(const EvalOptions& options);
// Whether the model of `source` was trained with --task translate.
bool trained_to_translate(const ModelSource& source);

struct ShowOptions {
  ModelSource source;
  std::vector<std::string> prompts;  // one or more
  std::string out_dir;               // "" = <model>/show
};
// Writes explorer.html (examples/base/pages/explorer.h): every layer's and head's causal
// self-attention on each prompt, and the training curves of a trained checkpoint. Returns the
// files written.
std::vector<std::string> show(const ShowOptions& options);

}  // namespace atencion::examples::gpt
