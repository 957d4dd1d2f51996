// bench/bench_train_step.cpp — one training step of a translation Transformer, in target
// tokens per second. Compare with torch.nn.Transformer doing the same step: bench/compare.py.
//
//   train_step/tiny        nn::Transformer with d_model 128, 4 heads, 2 + 2 layers, d_ff 512,
//                          vocabularies of 4000; a batch of 64 pairs with 20 tokens a side.
//   train_step/translator  the translator's default model (examples/translate): d_model 256,
//                          4 heads, 2 + 2 layers, d_ff 1024, vocabularies of 8000; a batch of
//                          128 pairs with 16 tokens a side (its 2,048-token batches).
// Both: dropout 0.1, a causal target mask, label-smoothed (0.1) cross-entropy fused with the
// output projection as the translator trains (Transformer::projected_cross_entropy); zero_grad,
// forward, backward and one Adam step per iteration.
//
// Besides tokens/s, each case reports what the kernel costs a step (getrusage, whole process):
//   minor_faults_per_step  pages first touched (freshly mapped memory) per step
//   system_time_share      system CPU time / (user + system) CPU time over the timed steps
//   peak_tensor_mib        the most bytes the tensors held at once (Storage::peak_bytes)
// A warm-up step runs before the timing, so the figures are those of a step in steady state.
// Every case runs at 1, 2, 4, ... threads (`/threads:T`, bench/thread_sweep.h) and reports its
// parallel efficiency.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "autograd/variable.h"
#include "nn/loss.h"
#include "nn/masks.h"
#include "nn/optim/adam.h"
#include "bench/thread_sweep.h"
#include "nn/transformer.h"
#include "tensor/random.h"

namespace {

using atencion::Tensor;
using atencion::Variable;

struct StepShape {
  const char* name;
  int64_t d_model, d_ff, vocabulary, batch, tokens;
};

// The process's CPU time and page faults so far (getrusage), and their differences.
struct ProcessUsage {
  double user_seconds = 0, system_seconds = 0, minor_faults = 0;
  ProcessUsage operator-(const ProcessUsage& earlier) const {
    return {user_seconds - earlier.user_seconds, system_seconds - earlier.system_seconds,
            minor_faults - earlier.minor_faults};
  }
};

ProcessUsage process_usage() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return {seconds(usage.ru_utime), seconds(usage.ru_stime),
          static_cast<double>(usage.ru_minflt)};
}

// [batch, tokens] ids drawn uniformly from the vocabulary.
Tensor random_ids(const StepShape& shape, atencion::Generator& generator) {
  std::vector<int64_t> ids(shape.batch * shape.tokens);
  for (int64_t& id : ids) id = static_cast<int64_t>(generator.uniform() * shape.vocabulary);
  return Tensor::from_ids(ids, {shape.batch, shape.tokens});
}

void train_step(benchmark::State& state, const StepShape& shape) {
  const int threads = static_cast<int>(state.range(0));
  const atencion::bench::UseThreads use_threads(threads);
  atencion::Generator generator(42);
  atencion::nn::TransformerConfig config;
  config.src_vocab = config.tgt_vocab = shape.vocabulary;
  config.d_model = shape.d_model;
  config.heads = 4;
  config.encoder_layers = config.decoder_layers = 2;
  config.d_ff = shape.d_ff;
  config.dropout = 0.1;
  atencion::nn::Transformer model(config, generator);
  atencion::nn::Adam optimizer(model.parameters(), {});
  const Tensor source = random_ids(shape, generator);
  const Tensor target_input = random_ids(shape, generator);
  const Tensor target_output = random_ids(shape, generator);
  const Tensor target_mask = atencion::nn::causal_mask(shape.tokens);
  const atencion::nn::CrossEntropyOptions loss_options{.label_smoothing = 0.1};

  auto step = [&] {
    optimizer.zero_grad();
    // logits and cross-entropy in one op that never holds the logits (nn/loss.h)
    Variable memory = model.encode(source);
    Variable states = model.decode_states(target_input, memory, target_mask);
    Variable loss = model.projected_cross_entropy(states, target_output, loss_options);
    loss.backward();
    optimizer.step();
    return loss.item();
  };
  step();  // warm-up: Adam's moments and the allocator's first blocks
  atencion::Storage::reset_peak_bytes();

  const ProcessUsage usage_before = process_usage();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(step());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const ProcessUsage used = process_usage() - usage_before;
  const double steps = static_cast<double>(state.iterations());
  const double target_tokens = static_cast<double>(shape.batch * shape.tokens) * steps;
  atencion::bench::report_rate(state, shape.name, threads, "tokens_per_second",
                              target_tokens / seconds);
  state.counters["minor_faults_per_step"] = benchmark::Counter(used.minor_faults / steps);
  state.counters["peak_tensor_mib"] =
      benchmark::Counter(static_cast<double>(atencion::Storage::peak_bytes()) / (1 << 20));
  state.counters["system_time_share"] =
      benchmark::Counter(used.system_seconds / (used.user_seconds + used.system_seconds));
}

}  // namespace

BENCHMARK_CAPTURE(train_step, tiny, StepShape{"tiny", 128, 512, 4000, 64, 20})
    ->Name("train_step/tiny")
    ->Unit(benchmark::kMillisecond)
    ->Apply(atencion::bench::thread_sweep);
BENCHMARK_CAPTURE(train_step, translator, StepShape{"translator", 256, 1024, 8000, 128, 16})
    ->Name("train_step/translator")
    ->Unit(benchmark::kMillisecond)
    ->Apply(atencion::bench::thread_sweep);

BENCHMARK_MAIN();
