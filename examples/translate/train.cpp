// examples/translate/train.cpp — the translator's part of training: the run directory, the data
// and tokenizers of a fresh run (or those of the checkpoint it resumes), the model, and its
// loss on a batch of sentence pairs; the loop itself is the shared Trainer
// (examples/base/training/trainer.h).
// Lesson: docs/12-translation.md#the-training-loop, docs/12-translation.md#checkpoints
#include "translate/train.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "base/data/bleu.h"
#include "base/io/json_fields.h"
#include "base/training/optimizer_settings.h"
#include "base/training/session.h"
#include "nn/eval_scope.h"
#include "translate/data.h"
#include "translate/decode.h"
#include "translate/translator.h"

namespace atencion::examples::translate {
namespace {

// Pieces for each pair; pairs too long for the positional encoding are left out.
std::vector<Example> tokenize_pairs(const std::vector<SentencePair>& pairs,
                                    const Translator& translator) {
  const size_t longest = static_cast<size_t>(translator.config.max_len - 1);  // + bos or eos
  std::vector<Example> examples;
  examples.reserve(pairs.size());
  for (const auto& pair : pairs) {
    Example example{translator.source_tokenizer.encode(pair.source),
                    translator.target_tokenizer.encode(pair.target)};
    if (example.source_ids.size() <= longest && example.target_ids.size() <= longest)
      examples.push_back(std::move(example));
  }
  return examples;
}

// A new translator: SentencePiece tokenizers trained on the training split (by rank 0, then
// shared), and a model with fresh weights from the run's seed.
Translator new_translator(const TrainOptions& options, const DataSplit& split,
                          const DataParallel& parallel) {
  std::vector<std::string> sources, targets;
  for (const auto& pair : split.train) {
    sources.push_back(pair.source);
    targets.push_back(pair.target);
  }
  TokenizerOptions tokenizer_options;
  tokenizer_options.vocab_size = options.run.vocab_size;
  tokenizer_options.seed = static_cast<uint32_t>(options.run.seed);
  return Translator::create(
      options.model,
      parallel.share_tokenizer([&] { return Tokenizer::train(sources, tokenizer_options); }),
      parallel.share_tokenizer([&] { return Tokenizer::train(targets, tokenizer_options); }),
      options.run.seed);
}

// The dev pairs whose greedy translations give the BLEU of each dev evaluation: the first
// 300, a second or two of decoding, so that the curve costs little of a 9-minute run.
constexpr size_t kBleuPairs = 300;
constexpr int64_t kBleuMaxLength = 64;  // pieces, as translate's default

// The translator as the Trainer sees it: batches of sentence pairs by tokens, the
// label-smoothed cross-entropy of the target pieces, the dev split's loss and BLEU, and
// checkpoints holding the run's config and both tokenizers.
class TranslationTask : public TrainingTask {
 public:
  TranslationTask(Translator& translator, const RunConfig& run, const DataSplit& split,
                  BatchPosition start)
      : translator_(translator),
        run_(run),
        train_examples_(tokenize_pairs(split.train, translator)),
        dev_examples_(tokenize_pairs(split.dev, translator)),
        batch_options_{.max_tokens = run.max_tokens},
        stream_(train_examples_, batch_options_, run.seed, start) {
    for (size_t i = 0; i < split.dev.size() && i < kBleuPairs; ++i) {
      bleu_sources_.push_back(split.dev[i].source);
      bleu_references_.push_back(split.dev[i].target);
    }
  }
  TranslationTask(const TranslationTask&) = delete;  // stream_ refers to train_examples_
  TranslationTask& operator=(const TranslationTask&) = delete;

  nn::Module& model() override { return *translator_.model; }
  BatchPosition position() const override { return stream_.position(); }
  int64_t batches_per_epoch() const override { return stream_.batches_per_epoch(); }

  StepLoss next_loss(const DataParallel& parallel) override {
    const Batch batch = stream_.next();
    const Batch shard = parallel.shard(batch, train_examples_, batch_options_);
    return {translator_.loss(to_tensors(shard), run_.label_smoothing), shard.target_tokens(),
            batch.target_tokens()};
  }

  // Mean cross-entropy (no smoothing) per target piece over the dev pairs, in eval mode.
  double evaluation_loss() override {
    nn::EvalScope evaluating(*translator_.model);
    double total = 0;
    int64_t tokens = 0;
    for (const auto& indices : plan_epoch(dev_examples_, batch_options_, 0, 0)) {
      const Batch batch = make_batch(dev_examples_, indices, batch_options_);
      const int64_t batch_tokens = batch.target_tokens();
      total += translator_.loss(to_tensors(batch), 0.0).item() * static_cast<double>(batch_tokens);
      tokens += batch_tokens;
    }
    return tokens > 0 ? total / static_cast<double>(tokens) : 0.0;
  }

  // Corpus BLEU of the greedy translations of the first kBleuPairs dev pairs (decoding runs
  // in eval mode and draws nothing: training goes on as before).
  std::vector<std::pair<std::string, double>> evaluation_measures(double) override {
    if (bleu_sources_.empty()) return {};
    const std::vector<std::string> hypotheses =
        translate_sentences(translator_, bleu_sources_, decode_options(1, kBleuMaxLength));
    return {{"bleu", corpus_bleu(hypotheses, bleu_references_).score}};
  }

  CheckpointData checkpoint() const override {
    CheckpointData data = translator_.to_checkpoint();
    data.config["run"] = run_;
    return data;
  }

 private:
  Translator& translator_;
  const RunConfig run_;
  const std::vector<Example> train_examples_, dev_examples_;
  const BatchOptions batch_options_;
  BatchStream stream_;
  std::vector<std::string> bleu_sources_, bleu_references_;  // the first kBleuPairs dev pairs
};

void say_data(Progress& progress, const DataSplit& split, const RunConfig& run) {
  progress.message("data: " + std::to_string(split.train.size()) + " training pairs, " +
                   std::to_string(split.dev.size()) + " dev, " +
                   std::to_string(split.test.size()) + " test (at most " +
                   std::to_string(run.max_words) + " words a side)");
}

void say_model(Progress& progress, const Translator& translator, double seconds) {
  progress.message(
      "model: " + std::to_string(translator.model->parameter_count()) +
      " parameters; vocabularies " + std::to_string(translator.config.src_vocab) + " (es) and " +
      std::to_string(translator.config.tgt_vocab) + " (en) pieces; prepared in " +
      format_duration(seconds));
}

}  // namespace

nlohmann::json with_schedule_of_older_runs(nlohmann::json config) {
  if (config.is_object() && config.contains("run") && config["run"].is_object()) {
    nlohmann::json& run = config["run"];
    if (!run.contains("schedule")) run["schedule"] = "inverse-sqrt";
    if (!run.contains("lr_floor")) run["lr_floor"] = 0.0;
    if (!run.contains("ema")) run["ema"] = 0.0;
  }
  return config;
}

RunConfig read_run_config(const nlohmann::json& config, const std::string& file) {
  // The ranges the command line accepts (commands/train.cpp), which is all a save writes.
  const nlohmann::json read = with_schedule_of_older_runs(config);
  return read_run_section<RunConfig>(read, file, [](const RunConfig& run) {
    if (run.max_words < 1) refuse_field("max_words", run.max_words, "at least 1");
    if (run.vocab_size < 1) refuse_field("vocab_size", run.vocab_size, "at least 1");
    if (run.max_tokens < 1) refuse_field("max_tokens", run.max_tokens, "at least 1");
    if (!(run.label_smoothing >= 0 && run.label_smoothing <= 1))
      refuse_field("label_smoothing", run.label_smoothing, "from 0 to 1");
    if (std::find(std::begin(kSchedules), std::end(kSchedules), run.schedule) ==
        std::end(kSchedules))
      refuse_field("schedule", run.schedule, "\"inverse-sqrt\" or \"linear\"");
    if (!(run.lr_floor >= 0 && run.lr_floor <= 1))
      refuse_field("lr_floor", run.lr_floor, "from 0 to 1");
    if (!(run.ema >= 0 && run.ema < 1)) refuse_field("ema", run.ema, "from 0 to below 1");
    check_optimizer_settings(run);
  });
}

std::string train(const TrainOptions& requested, nn::distributed::Communicator& communicator) {
  TrainOptions options = requested;
  TrainingSession session(communicator, options.trainer);  // one process, or one of N
  options.run = session.run_config(options.run, read_run_config);
  refuse_endless_decay(options.trainer, options.run.schedule == "linear");  // before preparing
  const DataSplit split =
      load_split(options.run.data_path, options.run.max_words, options.run.split_seed);
  say_data(session.progress(), split, options.run);
  Translator translator = session.resumes() ? Translator::from_checkpoint(session.checkpoint())
                                            : new_translator(options, split, session.parallel());
  session.prepare(*translator.model);
  TranslationTask task(translator, options.run, split, session.position());
  say_model(session.progress(), translator, session.seconds());
  // Adam with the paper's β2 and ε.
  OptimizerRecipe recipe =
      optimizer_recipe(options.run, translator.config.d_model, {.beta2 = 0.98, .eps = 1e-9});
  recipe.decay_to_end = options.run.schedule == "linear";
  recipe.lr_floor = options.run.lr_floor;
  recipe.ema_decay = options.run.ema;
  return session.train(task, recipe).last_checkpoint;
}

}  // namespace atencion::examples::translate
