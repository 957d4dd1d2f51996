// examples/gpt/instruction_task.cpp — see instruction_task.h.
#include "gpt/instruction_task.h"

#include <cmath>
#include <stdexcept>

#include "gpt/instructions.h"

namespace atencion::examples::gpt {
namespace {

class InstructionTask : public TrainingTask {
 public:
  InstructionTask(LanguageModel& language_model, const DataSplit& split,
                  const InstructionTaskSettings& settings, BatchPosition start,
                  const DataParallel& parallel)
      : language_model_(language_model),
        settings_(settings),
        parallel_(parallel),
        train_(encode_instructions(split.train, *language_model.tokenizer,
                                   language_model.model->config().context)),
        dev_(encode_instructions(split.dev, *language_model.tokenizer,
                                 language_model.model->config().context)),
        stream_(train_, settings.batch_size, settings.seed, start) {
    if (dev_.empty()) throw std::invalid_argument("instructions: no dev pair fits the context");
    std::vector<TokenBatch> all = instruction_batches(dev_, settings.batch_size);
    int64_t kept = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (settings.eval_tokens > 0 && kept >= settings.eval_tokens) break;
      kept += answer_tokens(all[i]);
      if (static_cast<int>(i % static_cast<size_t>(parallel.size())) == parallel.rank())
        evaluation_.push_back(all[i]);  // this process's share
    }
  }
  InstructionTask(const InstructionTask&) = delete;  // stream_ refers to train_
  InstructionTask& operator=(const InstructionTask&) = delete;

  nn::Module& model() override { return *language_model_.model; }
  BatchPosition position() const override { return stream_.position(); }
  int64_t batches_per_epoch() const override { return stream_.batches_per_epoch(); }

  // This process's rows of the next batch; the loss is the mean over their answer tokens.
  StepLoss next_loss(const DataParallel& parallel) override {
    const BatchPosition at = stream_.position();
    const TokenBatch batch = stream_.next();
    const nn::distributed::RowRange rows = parallel.rows(
        batch.ids.size(0), "instruction(s)", at,
        "raise --batch-size (now " + std::to_string(settings_.batch_size) + ")");
    const TokenBatch mine{batch.ids.narrow(0, rows.begin, rows.count()),
                          batch.targets.narrow(0, rows.begin, rows.count())};
    return {language_model_.model->loss(mine.ids, mine.targets), answer_tokens(mine),
            answer_tokens(batch)};
  }

  // The mean loss per answer token of the dev split (each process its share, summed).
  double evaluation_loss() override {
    const LanguageModel::Score mine = language_model_.score(evaluation_);
    return parallel_.sum(mine.nats) / parallel_.sum(static_cast<double>(mine.predictions));
  }

  CheckpointData checkpoint() const override {
    CheckpointData data = language_model_.to_checkpoint();
    data.config["run"] = settings_.run;
    return data;
  }

 private:
  LanguageModel& language_model_;
  const InstructionTaskSettings settings_;
  const DataParallel& parallel_;
  const std::vector<Instruction> train_, dev_;
  InstructionStream stream_;
  std::vector<TokenBatch> evaluation_;
};

}  // namespace

std::unique_ptr<TrainingTask> make_instruction_task(LanguageModel& language_model,
                                                    const DataSplit& split,
                                                    const InstructionTaskSettings& settings,
                                                    BatchPosition start,
                                                    const DataParallel& parallel) {
  return std::make_unique<InstructionTask>(language_model, split, settings, start, parallel);
}

std::string instruction_text(const std::vector<SentencePair>& pairs) {
  std::string text;
  for (const SentencePair& pair : pairs)
    text += instruction_prompt(pair.source) + instruction_answer(pair.target);
  return text;
}

}  // namespace atencion::examples::gpt
