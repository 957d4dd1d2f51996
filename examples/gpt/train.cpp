// examples/gpt/train.cpp — the GPT's part of training: the text and its split, the tokenizer
// and model of a fresh run (or those of the checkpoint it resumes), and the loss of a batch of
// windows; the loop itself is the shared Trainer (examples/base/training/trainer.h).
// Lesson: docs/15-gpt.md#training
#include "gpt/train.h"

#include <cmath>
#include <memory>
#include <numbers>
#include <stdexcept>

#include "base/io/file_checks.h"
#include "base/io/json_fields.h"
#include "base/training/optimizer_settings.h"
#include "base/training/session.h"
#include "base/data/split.h"
#include "base/data/tsv.h"
#include "gpt/fine_tune.h"
#include "gpt/instruction_task.h"
#include "gpt/language_model.h"
#include "gpt/start_from_weights.h"
#include "gpt/text_data.h"

namespace atencion::examples::gpt {
namespace {

// Every `size`-th batch from the `rank`-th: a process's share of the held-out batches.
std::vector<TokenBatch> every_nth(const std::vector<TokenBatch>& batches, int rank, int size) {
  std::vector<TokenBatch> mine;
  for (size_t i = static_cast<size_t>(rank); i < batches.size(); i += static_cast<size_t>(size))
    mine.push_back(batches[i]);
  return mine;
}

// The GPT as the Trainer sees it: batches of windows (on N processes, each its rows of every
// batch), the language-model loss of every position (one sequence of T tokens teaches T
// predictions), the held-out loss (the held-out batches shared out over the processes), and
// checkpoints holding the run's config and the tokenizer.
class LanguageModelTask : public TrainingTask {
 public:
  LanguageModelTask(LanguageModel& language_model, const RunConfig& run, const TextSplit& split,
                    BatchPosition start, const DataParallel& parallel)
      : language_model_(language_model),
        run_(run),
        parallel_(parallel),
        train_tokens_(language_model.tokenizer->encode(split.train)),
        held_out_tokens_(language_model.tokenizer->encode(split.held_out)),
        held_out_bytes_(static_cast<int64_t>(split.held_out.size())),
        stream_(train_tokens_, language_model.model->config().context, run.batch_size, run.seed,
                start),
        evaluation_(evaluation_batches(held_out_tokens_, language_model.model->config().context,
                                       run.batch_size, run.eval_tokens)) {
    if (evaluation_.empty())
      throw std::invalid_argument("the held-out text has " +
                                  std::to_string(held_out_tokens_.size()) +
                                  " tokens: too few to score (a longer text)");
    evaluation_ = every_nth(evaluation_, parallel.rank(), parallel.size());
  }
  LanguageModelTask(const LanguageModelTask&) = delete;  // stream_ refers to train_tokens_
  LanguageModelTask& operator=(const LanguageModelTask&) = delete;

  nn::Module& model() override { return *language_model_.model; }
  BatchPosition position() const override { return stream_.position(); }
  int64_t batches_per_epoch() const override { return stream_.batches_per_epoch(); }

  // This process's rows of the next batch of windows; every window holds `context` targets, so
  // the share's tokens are its rows times context.
  StepLoss next_loss(const DataParallel& parallel) override {
    const BatchPosition at = stream_.position();
    const TokenBatch batch = stream_.next();
    const nn::distributed::RowRange rows =
        parallel.rows(batch.ids.size(0), "window(s)", at,
                      "raise --batch-size (now " + std::to_string(run_.batch_size) + ")");
    const Tensor ids = batch.ids.narrow(0, rows.begin, rows.count());
    const Tensor targets = batch.targets.narrow(0, rows.begin, rows.count());
    return {language_model_.model->loss(ids, targets), ids.numel(), batch.tokens()};
  }

  // Each process scores its share of the held-out batches; the sums add up over them.
  double evaluation_loss() override {
    const LanguageModel::Score mine = language_model_.score(evaluation_);
    last_score_.nats = parallel_.sum(mine.nats);
    last_score_.predictions =
        std::llround(parallel_.sum(static_cast<double>(mine.predictions)));
    return last_score_.nats / static_cast<double>(last_score_.predictions);
  }

  // Perplexity e^loss; bits per byte: the nats over the bytes the scored tokens stand for (for
  // subword tokens, the held-out split's bytes per token times the predictions), over ln 2.
  std::vector<std::pair<std::string, double>> evaluation_measures(double) override {
    const double bytes_per_token =
        static_cast<double>(held_out_bytes_) / static_cast<double>(held_out_tokens_.size());
    const auto bytes = static_cast<int64_t>(
        std::llround(bytes_per_token * static_cast<double>(last_score_.predictions)));
    const TextMeasures measured = measures(last_score_, bytes);
    return {{"perplexity", measured.perplexity}, {"bits_per_byte", measured.bits_per_byte}};
  }

  CheckpointData checkpoint() const override {
    CheckpointData data = language_model_.to_checkpoint();
    data.config["run"] = run_;
    return data;
  }

 private:
  LanguageModel& language_model_;
  const RunConfig run_;
  const DataParallel& parallel_;
  const std::vector<int64_t> train_tokens_, held_out_tokens_;
  const int64_t held_out_bytes_;
  WindowStream stream_;
  std::vector<TokenBatch> evaluation_;  // this process's share
  LanguageModel::Score last_score_;
};

// A fresh model: the tokenizer (SentencePiece: trained by rank 0 on `tokenizer_text`, then
// shared) and weights from the run's seed.
LanguageModel new_language_model(const TrainOptions& options, const std::string& tokenizer_text,
                                 const DataParallel& parallel) {
  std::shared_ptr<const TextTokenizer> tokenizer = TextTokenizer::bytes();
  if (options.run.tokenizer == "sentencepiece") {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < tokenizer_text.size()) {
      size_t end = tokenizer_text.find('\n', start);
      if (end == std::string::npos) end = tokenizer_text.size();
      if (end > start) lines.push_back(tokenizer_text.substr(start, end - start));
      start = end + 1;
    }
    TokenizerOptions tokenizer_options;
    tokenizer_options.vocab_size = options.run.vocab_size;
    tokenizer_options.seed = static_cast<uint32_t>(options.run.seed);
    tokenizer = TextTokenizer::sentencepiece(
        parallel.share_tokenizer([&] { return Tokenizer::train(lines, tokenizer_options); }));
  }
  GPTConfig config = options.model;
  config.vocab = tokenizer->vocab_size();
  Generator generator(options.run.seed);
  return LanguageModel{std::make_shared<GPT>(config, generator), std::move(tokenizer), nullptr};
}

// What a run learns from: a text and its split, or the pairs and theirs.
struct RunData {
  TextSplit text;              // task "text"
  DataSplit pairs;             // task "translate"
  std::string tokenizer_text;  // what a fresh SentencePiece tokenizer is trained on
};

RunData load_run_data(const RunConfig& run) {
  RunData data;
  if (run.task == "translate") {
    const std::string path = run.text_path.empty() ? default_pairs_path() : run.text_path;
    data.pairs = split_run_pairs(read_pairs(path), run.max_words, run.split_seed);
    data.tokenizer_text = instruction_text(data.pairs.train);
  } else {
    data.text = split_text(load_text(run));
    data.tokenizer_text = data.text.train;
  }
  return data;
}

std::string describe_data(const RunConfig& run, const RunData& data) {
  if (run.task == "translate")
    return std::to_string(data.pairs.train.size()) + " instructions to train on, " +
           std::to_string(data.pairs.dev.size()) + " dev, " +
           std::to_string(data.pairs.test.size()) + " test (pairs of at most " +
           std::to_string(run.max_words) + " words a side)";
  return std::to_string(data.text.train.size()) + " bytes to train on, " +
         std::to_string(data.text.held_out.size()) + " held out";
}

// A run from weights: loaded, checked against the flags, then begun as a fine-tune (its
// record, and LoRA's adapters when asked for).
LanguageModel start_fine_tune(const TrainOptions& options) {
  const RunConfig& run = options.run;
  LanguageModel start = start_from_weights(run.init_from, run.gpt2, options.model, run.tokenizer,
                                           options.model_flags);
  begin_fine_tune(start, {run.init_from, run.gpt2}, options.finetune, run.seed);
  return start;
}

}  // namespace

RunConfig read_run_config(const nlohmann::json& config, const std::string& file) {
  return read_run_section<RunConfig>(config, file, [](const RunConfig& run) {
    if (run.task != "text" && run.task != "translate")
      refuse_field("task", run.task, "\"text\" or \"translate\"");
    if (run.max_words < 0) refuse_field("max_words", run.max_words, "at least 0");
    if (!run.init_from.empty() && !run.gpt2.empty())
      refuse_field("gpt2", run.gpt2, "\"\" when init_from is given");
    if (run.tokenizer != "bytes" && run.tokenizer != "sentencepiece")
      refuse_field("tokenizer", run.tokenizer, "\"bytes\" or \"sentencepiece\"");
    if (run.vocab_size < 8) refuse_field("vocab_size", run.vocab_size, "at least 8");
    if (run.batch_size < 1) refuse_field("batch_size", run.batch_size, "at least 1");
    if (run.eval_tokens < 0) refuse_field("eval_tokens", run.eval_tokens, "at least 0");
    check_optimizer_settings(run);
  });
}

std::string load_text(const RunConfig& run) {
  if (run.text_path.empty()) return english_side(default_pairs_path(), run.split_seed);
  return read_file(run.text_path);
}

std::string train(const TrainOptions& requested, nn::distributed::Communicator& communicator) {
  TrainOptions options = requested;
  TrainingSession session(communicator, options.trainer);  // one process, or one of N
  options.run = session.run_config(options.run, read_run_config);
  const RunConfig& run = options.run;
  const RunData data = load_run_data(run);
  LanguageModel language_model =
      session.resumes() ? LanguageModel::from_checkpoint(session.checkpoint())
      : run.init_from.empty() && run.gpt2.empty()
          ? new_language_model(options, data.tokenizer_text, session.parallel())
          : start_fine_tune(options);
  session.prepare(*language_model.model);
  std::unique_ptr<TrainingTask> task;
  if (run.task == "translate")
    task = make_instruction_task(language_model, data.pairs,
                                 {run.batch_size, run.eval_tokens, run.seed, nlohmann::json(run)},
                                 session.position(), session.parallel());
  else
    task = std::make_unique<LanguageModelTask>(language_model, run, data.text, session.position(),
                                               session.parallel());
  const GPTConfig& config = language_model.model->config();
  session.progress().message(
      "data: " + describe_data(run, data) + "; " + language_model.tokenizer->kind_name() +
      " tokens (" + std::to_string(config.vocab) + "), " + std::to_string(task->batches_per_epoch()) +
      " batches of " + std::to_string(run.batch_size) + " an epoch");
  session.progress().message("model: " + language_model.model->type_name() + ", " +
                             std::to_string(language_model.model->parameter_count()) +
                             " parameters; prepared in " + format_duration(session.seconds()));
  // Adam with nanoGPT's β2 for small models; a fine-tune's schedule for a run from weights.
  OptimizerRecipe recipe = optimizer_recipe(run, config.d_model, {.beta2 = 0.99, .eps = 1e-8});
  if (!language_model.finetune.is_null()) {
    recipe.fine_tune = read_finetune_settings(language_model.finetune, "fine-tune").schedule();
    session.progress().message(trainable_line(*language_model.model));
  }
  return session.train(*task, recipe).last_checkpoint;
}

}  // namespace atencion::examples::gpt
