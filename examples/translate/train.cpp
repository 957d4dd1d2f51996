// examples/translate/train.cpp — the translator's part of training: the run directory, the data
// and tokenizers of a fresh run (or those of the checkpoint it resumes), the model, and its
// loss on a batch of sentence pairs; the loop itself is the shared Trainer
// (examples/base/training/trainer.h).
// Lesson: docs/12-translation.md#the-training-loop, docs/12-translation.md#checkpoints
#include "translate/train.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "base/checkpoints/run_directory.h"
#include "translate/data.h"
#include "translate/translator.h"

namespace atencion::examples::translate {
namespace {

using Clock = std::chrono::steady_clock;

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

// The translator as the Trainer sees it: batches of sentence pairs by tokens, the
// label-smoothed cross-entropy of the target pieces, the dev split's loss, and checkpoints
// holding the run's config and both tokenizers.
class TranslationTask : public TrainingTask {
 public:
  TranslationTask(Translator& translator, const RunConfig& run, const DataSplit& split,
                  BatchPosition start)
      : translator_(translator),
        run_(run),
        train_examples_(tokenize_pairs(split.train, translator)),
        dev_examples_(tokenize_pairs(split.dev, translator)),
        batch_options_{.max_tokens = run.max_tokens},
        stream_(train_examples_, batch_options_, run.seed, start) {}

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
    NoGradGuard no_grad;
    translator_.model->eval();
    double total = 0;
    int64_t tokens = 0;
    for (const auto& indices : plan_epoch(dev_examples_, batch_options_, 0, 0)) {
      const Batch batch = make_batch(dev_examples_, indices, batch_options_);
      const int64_t batch_tokens = batch.target_tokens();
      total += translator_.loss(to_tensors(batch), 0.0).item() * static_cast<double>(batch_tokens);
      tokens += batch_tokens;
    }
    translator_.model->train();
    return tokens > 0 ? total / static_cast<double>(tokens) : 0.0;
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
};

OptimizerRecipe recipe_for(const RunConfig& run, int64_t d_model) {
  OptimizerRecipe recipe{.d_model = d_model,
                         .warmup_steps = run.warmup_steps,
                         .lr_factor = run.lr_factor,
                         .clip_norm = run.clip_norm};
  recipe.adam.beta2 = 0.98;  // the paper's β2 and ε
  recipe.adam.eps = 1e-9;
  return recipe;
}

BatchPosition position_of(const CheckpointData& checkpoint) {
  try {
    return {checkpoint.trainer.at("epoch").get<int64_t>(),
            checkpoint.trainer.at("batch").get<int64_t>()};
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(checkpoint.directory + "/trainer.json: " + error.what());
  }
}

void say_data(Progress& progress, const DataSplit& split, const RunConfig& run) {
  progress.message("data: " + std::to_string(split.train.size()) + " training pairs, " +
                   std::to_string(split.dev.size()) + " dev, " +
                   std::to_string(split.test.size()) + " test (at most " +
                   std::to_string(run.max_words) + " words a side)");
}

void say_model(Progress& progress, const Translator& translator, Clock::time_point start) {
  progress.message(
      "model: " + std::to_string(translator.model->parameter_count()) +
      " parameters; vocabularies " + std::to_string(translator.config.src_vocab) + " (es) and " +
      std::to_string(translator.config.tgt_vocab) + " (en) pieces; prepared in " +
      format_duration(std::chrono::duration<double>(Clock::now() - start).count()));
}

}  // namespace

std::string train(const TrainOptions& requested) {
  const auto start_time = Clock::now();
  TrainOptions options = requested;
  const std::string& out_dir = options.trainer.out_dir;
  const DataParallel parallel;  // one process, or this one of mpirun's N (data_parallel.h)
  Progress progress(parallel.is_main() ? stdout : nullptr, parallel.size() > 1);
  // Rank 0 alone owns the run directory; the others read it once rank 0 has prepared it.
  std::optional<RunDirectoryLock> lock;
  if (parallel.is_main()) {
    lock.emplace(out_dir);
    prepare_run_directory(out_dir, options.trainer.resume, options.trainer.overwrite);
  }
  parallel.barrier();

  std::optional<CheckpointData> checkpoint;
  if (options.trainer.resume && resolve_checkpoint(out_dir).empty()) {
    progress.message("resume: no checkpoint in " + out_dir + ", starting afresh");
  } else if (options.trainer.resume) {
    checkpoint = load_checkpoint(out_dir);
    options.run = checkpoint->config.at("run").get<RunConfig>();
  }
  const DataSplit split =
      load_split(options.run.data_path, options.run.max_words, options.run.split_seed);
  say_data(progress, split, options.run);

  Translator translator = checkpoint ? Translator::from_checkpoint(*checkpoint)
                                     : new_translator(options, split, parallel);
  parallel.share_parameters(translator.model->parameters());
  translator.model->train();
  TranslationTask task(translator, options.run, split,
                       checkpoint ? position_of(*checkpoint) : BatchPosition{});
  say_model(progress, translator, start_time);

  Trainer trainer(task, options.trainer, recipe_for(options.run, translator.config.d_model),
                  parallel, progress, checkpoint ? &*checkpoint : nullptr, start_time);
  if (checkpoint)
    progress.message("resumed " + out_dir + " at step " + std::to_string(trainer.steps_done()) +
                     " (epoch " + std::to_string(task.position().epoch) + ", batch " +
                     std::to_string(task.position().batch) + ")");
  const std::string last_checkpoint = trainer.run();
  if (!parallel.is_main()) return last_checkpoint;
  if (parallel.size() > 1)
    progress.message(parallel.summary(trainer.steps_this_run(), trainer.seconds_this_run()));
  char summary[160];
  std::snprintf(summary, sizeof summary, "trained %lld steps in %s; dev loss %.3f",
                static_cast<long long>(trainer.steps_done()),
                format_duration(trainer.training_seconds()).c_str(), trainer.dev_loss());
  progress.message(summary);
  return last_checkpoint;
}

}  // namespace atencion::examples::translate
