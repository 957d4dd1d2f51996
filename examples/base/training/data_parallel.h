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

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/variable.h"
#include "base/data/batching.h"
#include "base/data/tokenizer.h"
#include "nn/distributed.h"
#include "nn/optim/adam.h"

namespace atencion::examples {

class DataParallel {
 public:
  // 1 MiB buckets (DDP's first bucket; its others are 25 MB): the models here hold 1 to 40 MB
  // of gradients, and a bucket can only leave once its last gradient is final, so smaller
  // buckets leave earlier; at 10 Gbit/s a 1 MiB bucket takes 0.8 ms against a latency of
  // some 50 µs (docs/performance.md#a-paper-model-for-n-machines).
  static constexpr std::size_t kBucketBytes = std::size_t{1} << 20;

  // Over the processes of `communicator` (main makes it; it must outlive this object).
  explicit DataParallel(nn::distributed::Communicator& communicator);
  int rank() const { return communicator_.rank(); }
  int size() const { return communicator_.size(); }
  bool is_main() const { return rank() == 0; }  // logs, checkpoints, evaluates

  // Rank 0 runs `make` (e.g. trains a tokenizer); every rank gets its result.
  Tokenizer share_tokenizer(const std::function<Tokenizer()>& make) const;
  // Rank 0's values for every parameter, after checking that the models are alike.
  void share_parameters(const std::vector<Variable>& parameters) const;

  // This process's rows [begin, end) of a global batch of `rows` (all of them for one
  // process). Throws, naming the batch at `at`, its rows (`unit`: "sentence(s)") and `remedy`
  // ("raise --max-tokens (now 10)"), when the batch has fewer rows than there are processes.
  nn::distributed::RowRange rows(int64_t rows, const std::string& unit, BatchPosition at,
                                 const std::string& remedy) const;
  // This process's sentences of the global batch, padded for themselves (rows() of its
  // sentences).
  Batch shard(const Batch& global, const std::vector<Example>& examples,
              const BatchOptions& options) const;
  // The gradients averaged while backward runs (nn::distributed::GradientReducer), for the
  // trainer's parameters, in buckets of kBucketBytes; null on one process.
  std::unique_ptr<nn::distributed::GradientReducer> gradient_reducer(
      const std::vector<Variable>& parameters) const;
  // The optimizer's step. On N processes each updates its part of every parameter that has a
  // gradient (nn::Adam::step_part) and the parts travel to the others (all_gather_parts): the
  // same bits as one process's step(), with 1/N of its work and memory traffic on each
  // (ZeRO stage 1, docs/13-data-parallel.md#the-update-shared-out).
  void step(nn::Adam& optimizer) const;
  // Adam's moments made whole on every process (each has only its own parts up to date):
  // before a checkpoint writes them. Nothing to do on one process.
  void gather_optimizer_state(const nn::Adam& optimizer) const;
  // The shard's part of the global batch's loss: loss · n_r / n, which sum() adds up to the
  // global batch's mean loss (the loss itself for one process).
  double loss_share(double shard_loss, int64_t shard_tokens, int64_t global_tokens) const;
  double sum(double value) const;   // over the processes
  bool any(bool value) const;       // true on every process if true on one (e.g. time is up)
  void barrier() const;             // returns once every process has called it
  // Throws unless every process holds the same parameter bits (called before each checkpoint).
  void check_parameters_identical(const std::vector<Variable>& parameters, int64_t step) const;
  // "data parallel: 2 processes, communication 0.80 s of 41.0 s (20.0 ms a step, 2.0%), 75% of
  // it hidden behind backward; 2 buckets (6.3 + 3.5 M numbers); the processes ended backward
  // 4.1 ms apart (a step, on average)": this process's time with gradients in flight over
  // `steps` steps of `seconds` training, the part of it that backward covered (the rest,
  // finish() waited for), and how long the fastest process waited for the slowest each step.
  std::string summary(int64_t steps, double seconds,
                      const nn::distributed::GradientReducer& reducer) const;

 private:
  nn::distributed::Communicator& communicator_;
};

}  // namespace atencion::examples
