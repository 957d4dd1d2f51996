// examples/base/training/data_parallel.h — a model family's training loop (the Trainer) on N
// processes; the translator's is the lesson's example.
// Lesson: docs/13-data-parallel.md#the-translator-on-n-processes
//
// Under `mpirun -np N atencion-translate train ...` every process builds the same global batch
// (the batch stream is a pure function of the seed and the position) and trains on its own rows
// of it; the gradients are averaged by target tokens (nn/distributed.h), so every process makes
// the update one process would make on the whole batch, and the schedule, the checkpoints and
// --resume count global batches as before. Rank 0 alone trains the tokenizers, logs and writes
// checkpoints. Started without mpirun, N = 1 and every call here is the single-process one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "autograd/variable.h"
#include "base/data/batching.h"
#include "base/data/tokenizer.h"
#include "nn/distributed.h"

namespace atencion::examples {

class DataParallel {
 public:
  // Over the processes of `communicator` (main makes it; it must outlive this object).
  explicit DataParallel(nn::distributed::Communicator& communicator);
  int rank() const { return communicator_.rank(); }
  int size() const { return communicator_.size(); }
  bool is_main() const { return rank() == 0; }  // logs, checkpoints, evaluates

  // Rank 0 runs `make` (e.g. trains a tokenizer); every rank gets its result.
  Tokenizer share_tokenizer(const std::function<Tokenizer()>& make) const;
  // Rank 0's values for every parameter, after checking that the models are alike.
  void share_parameters(const std::vector<Variable>& parameters) const;

  // This process's rows of the global batch, padded for themselves (the whole batch for one
  // process). Throws, naming the batch and --max-tokens, when it has fewer sentences than
  // there are processes.
  Batch shard(const Batch& global, const std::vector<Example>& examples,
              const BatchOptions& options) const;
  // After backward on the shard: every .grad becomes the global batch's gradient. Checks that
  // the ranks' token counts add up to the global batch's.
  void average_gradients(const std::vector<Variable>& parameters, int64_t shard_tokens,
                         int64_t global_tokens) const;
  // The shard's part of the global batch's loss: loss · n_r / n, which sum() adds up to the
  // global batch's mean loss (the loss itself for one process).
  double loss_share(double shard_loss, int64_t shard_tokens, int64_t global_tokens) const;
  double sum(double value) const;   // over the processes
  bool any(bool value) const;       // true on every process if true on one (e.g. time is up)
  void barrier() const;             // returns once every process has called it
  // Throws unless every process holds the same parameter bits (called before each checkpoint).
  void check_parameters_identical(const std::vector<Variable>& parameters, int64_t step) const;
  // "data parallel: N processes, communication 0.8 s of 41 s (20 ms a step, 2%)": this
  // process's time in the gradient all-reduce over `steps` steps of `seconds` training.
  std::string summary(int64_t steps, double seconds) const;

 private:
  nn::distributed::Communicator& communicator_;
};

}  // namespace atencion::examples
