// examples/gpt/instruction_task.h — the instruction fine-tune as the shared Trainer sees it
// (examples/base/training/trainer.h): batches of Spanish–English instructions, the loss on the
// answer tokens only (instructions.h), the dev split's answer loss as the held-out loss.
// Lesson: docs/18-finetuning.md#the-gpt-instruction-fine-tuning
#pragma once

#include <memory>
#include <string>

#include "base/data/split.h"
#include "base/training/trainer.h"
#include "gpt/language_model.h"

namespace atencion::examples::gpt {

struct InstructionTaskSettings {
  int64_t batch_size = 16;
  int64_t eval_tokens = 0;  // answer tokens of the dev split scored (about; 0: all)
  uint64_t seed = 1;
  nlohmann::json run;       // config.json's "run", written into each checkpoint
};

std::unique_ptr<TrainingTask> make_instruction_task(LanguageModel& language_model,
                                                    const DataSplit& split,
                                                    const InstructionTaskSettings& settings,
                                                    BatchPosition start,
                                                    const DataParallel& parallel);

// The text a SentencePiece tokenizer for this task is trained on: each training pair as its
// prompt and answer.
std::string instruction_text(const std::vector<SentencePair>& pairs);

}  // namespace atencion::examples::gpt
