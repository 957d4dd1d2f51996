// examples/bert/train.cpp — the BERT's part of training: its text and pieces, the model, and the
// masked-LM loss of a batch; the loop itself is the shared Trainer
// (examples/base/training/trainer.h). Lesson: docs/16-bert.md#train-one
#include "bert/train.h"

#include <cstdio>

#include "base/data/shuffle.h"
#include "base/io/json_fields.h"
#include "base/training/optimizer_settings.h"
#include "base/training/session.h"
#include "bert/masked_lm.h"
#include "bert/masking.h"
#include "bert/start_from_weights.h"
#include "bert/text.h"

namespace atencion::examples::bert {
namespace {

// [CLS] pieces [SEP] of each sentence, those too long for the positions left out.
std::vector<Example> encode_sentences(const std::vector<std::string>& sentences,
                                      const MaskedLanguageModel& lm) {
  std::vector<Example> examples;
  for (const std::string& sentence : sentences) {
    std::vector<int64_t> ids = lm.pieces->encode(sentence);
    if (static_cast<int64_t>(ids.size()) <= lm.config.max_positions)
      // The batcher is made for pairs and wants a target: one piece stands in for it (unused).
      examples.push_back({std::move(ids), {lm.pieces->special().cls}});
  }
  return examples;
}

std::vector<std::vector<int64_t>> ids_of(const std::vector<Example>& examples) {
  std::vector<std::vector<int64_t>> ids;
  for (const Example& example : examples) ids.push_back(example.source_ids);
  return ids;
}

// The BERT as the Trainer sees it: batches of sentences by padded pieces, each sentence masked
// afresh every epoch (from the run's seed, the epoch and its index: exact on resume), the loss
// on the masked pieces only, and the held-out split's loss with a fixed masking.
class MaskedLanguageTask : public TrainingTask {
 public:
  MaskedLanguageTask(MaskedLanguageModel& lm, const RunConfig& run, const TextSplit& split,
                     BatchPosition start)
      : lm_(lm),
        run_(run),
        train_(encode_sentences(split.train, lm)),
        held_out_(ids_of(encode_sentences(split.held_out, lm))),
        batch_options_{.max_tokens = run.max_tokens},
        stream_(train_, batch_options_, run.seed, start) {}
  MaskedLanguageTask(const MaskedLanguageTask&) = delete;  // stream_ refers to train_
  MaskedLanguageTask& operator=(const MaskedLanguageTask&) = delete;

  nn::Module& model() override { return *lm_.model; }
  BatchPosition position() const override { return stream_.position(); }
  int64_t batches_per_epoch() const override { return stream_.batches_per_epoch(); }

  StepLoss next_loss(const DataParallel& parallel) override {
    const Batch batch = stream_.next();
    const Batch shard = parallel.shard(batch, train_, batch_options_);
    const EncodedBatch whole = masked(batch), mine = masked(shard);
    int64_t pieces = 0;
    for (const int64_t length : batch.source_lengths) pieces += length;
    pieces_read_ += pieces;
    // The loss averages over the masked pieces; the speed counts every piece read.
    return {lm_.loss(mine), mine.masked, whole.masked, pieces};
  }

  double evaluation_loss() override {
    return score_masked(lm_, held_out_, kHeldOutMaskingSeed, run_.max_tokens).loss;
  }

  CheckpointData checkpoint() const override {
    CheckpointData data = lm_.to_checkpoint();
    data.config["run"] = run_;
    return data;
  }

  const std::vector<std::vector<int64_t>>& held_out() const { return held_out_; }
  int64_t pieces_read() const { return pieces_read_; }  // by this run, [CLS] and [SEP] included
  // Every piece read, [CLS] and [SEP] included, as the last line's "speed: N pieces/s".
  const char* speed_unit() const override { return "pieces/s"; }

 private:
  EncodedBatch masked(const Batch& batch) const {
    std::vector<std::vector<int64_t>> inputs, labels;
    const uint64_t epoch_seed = derive_seed(run_.seed, static_cast<uint64_t>(batch.epoch) + 1);
    for (const size_t index : batch.example_indices) {
      MaskedSentence one = mask_sentence(train_[index].source_ids, *lm_.pieces,
                                         derive_seed(epoch_seed, index));
      inputs.push_back(std::move(one.input_ids));
      labels.push_back(std::move(one.labels));
    }
    return encode_batch(inputs, lm_.pieces->special().pad, labels);
  }

  MaskedLanguageModel& lm_;
  const RunConfig run_;
  const std::vector<Example> train_;
  const std::vector<std::vector<int64_t>> held_out_;
  const BatchOptions batch_options_;
  BatchStream stream_;
  int64_t pieces_read_ = 0;
};

MaskedLanguageModel new_model(const TrainOptions& options, const TextSplit& split,
                              const DataParallel& parallel) {
  TokenizerOptions tokenizer_options;
  tokenizer_options.vocab_size = options.run.vocab_size;
  tokenizer_options.seed = static_cast<uint32_t>(options.run.seed);
  auto pieces = std::make_shared<SentencePieces>(
      parallel.share_tokenizer([&] { return Tokenizer::train(split.train, tokenizer_options); }));
  return MaskedLanguageModel::create(options.model, std::move(pieces), options.run.seed);
}

// The held-out masked-token accuracy (rank 0's evaluation) and the pieces read a second.
void say_held_out_and_speed(Progress& progress, const MaskedLanguageModel& lm,
                            const MaskedLanguageTask& task, const RunConfig& run,
                            const TrainingResult& result) {
  const MaskedScore held_out = score_masked(lm, task.held_out(), kHeldOutMaskingSeed,
                                            run.max_tokens);
  char line[200];
  std::snprintf(line, sizeof line,
                "held out: masked-token accuracy %.2f%%, loss %.4f over %lld masked pieces",
                100 * held_out.accuracy, held_out.loss, static_cast<long long>(held_out.masked));
  progress.message(line);
  std::snprintf(line, sizeof line, "speed: %.0f pieces/s over %.1f s of training (%lld steps)",
                static_cast<double>(task.pieces_read()) / result.seconds, result.seconds,
                static_cast<long long>(result.steps));
  progress.message(line);
}

}  // namespace

RunConfig read_run_config(const nlohmann::json& config, const std::string& file) {
  return read_run_section<RunConfig>(config, file, [](const RunConfig& run) {
    if (run.vocab_size < 6) refuse_field("vocab_size", run.vocab_size, "at least 6");
    if (run.max_tokens < 1) refuse_field("max_tokens", run.max_tokens, "at least 1");
    if (!run.init_from.empty() && !run.bert_dir.empty())
      refuse_field("bert_dir", run.bert_dir, "\"\" when init_from is given");
    check_optimizer_settings(run);
  });
}

std::string train(const TrainOptions& requested, nn::distributed::Communicator& communicator) {
  TrainOptions options = requested;
  TrainingSession session(communicator, options.trainer);  // one process, or one of N
  options.run = session.run_config(options.run, read_run_config);
  const TextSplit split = split_sentences(read_sentences(options.run.text_path),
                                          options.run.split_seed);
  session.progress().message("text: " + std::to_string(split.train.size()) +
                             " training sentences, " + std::to_string(split.held_out.size()) +
                             " held out");
  const RunConfig& run = options.run;
  MaskedLanguageModel lm =
      session.resumes() ? MaskedLanguageModel::from_checkpoint(session.checkpoint())
      : run.init_from.empty() && run.bert_dir.empty()
          ? new_model(options, split, session.parallel())
          : start_from_weights(run.init_from, run.bert_dir, options.model, options.model_flags,
                               options.finetune);
  session.prepare(*lm.model);
  MaskedLanguageTask task(lm, options.run, split, session.position());
  session.progress().message("model: " + std::to_string(lm.model->parameter_count()) +
                             " parameters, " + std::to_string(lm.config.vocab) +
                             " pieces with [MASK]; prepared in " +
                             format_duration(session.seconds()));
  // Adam with the Transformer paper's β2 and ε, as the translator's; a fine-tune's schedule for
  // a run from weights.
  OptimizerRecipe recipe = optimizer_recipe(run, lm.config.hidden, {.beta2 = 0.98, .eps = 1e-9});
  if (!lm.finetune.is_null()) {
    recipe.fine_tune = read_finetune_settings(lm.finetune, "fine-tune").schedule();
    const nlohmann::json& base = lm.finetune.at("base");
    session.progress().message("base: " + base.value("source", std::string("?")) +
                               " (weights " + base.value("checksum", std::string("?")) + ")");
  }
  const TrainingResult result = session.train(task, recipe);
  if (session.parallel().is_main())
    say_held_out_and_speed(session.progress(), lm, task, options.run, result);
  return result.last_checkpoint;
}

}  // namespace atencion::examples::bert
