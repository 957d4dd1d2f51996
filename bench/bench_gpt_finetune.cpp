// bench/bench_gpt_finetune.cpp — one fine-tuning step of a GPT-2-small-sized GPT (random weights
// in GPT-2's shape: vocab 50257, context 1024, d_model 768, 12 heads, 12 layers; 124M
// parameters), full fine-tuning against LoRA. Lesson: docs/18-finetuning.md#the-gpt-instruction-fine-tuning
//
//   gpt_finetune/full   every parameter trained (Adam over all of them)
//   gpt_finetune/lora   LoRA rank 8, α 16 on every q_proj and v_proj (nn/lora.h): W frozen,
//                       only the adapters in the optimizer
// Each step: zero_grad, the language-model loss of a batch of 2 sequences × 128 tokens (dropout
// 0.1), backward, one Adam step; one warm-up step before the 2 timed ones.
// Counters: trainable_parameters; optimizer_mib (Adam's m and v, read from its state);
// cpu_seconds_per_step (all threads: steadier than the wall clock on a shared machine);
// peak_tensor_mib (the most bytes tensors held at once during the timed steps). The process's
// peak RSS is the kernel's: run one case alone under /usr/bin/time -v,
//   /usr/bin/time -v build/bench/bench_gpt_finetune --benchmark_filter=lora
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <memory>
#include <vector>

#include "bench/gpt2_small_config.h"
#include "gpt/gpt.h"
#include "nn/lora.h"
#include "nn/optim/adam.h"
#include "tensor/random.h"

namespace {

using atencion::examples::gpt::GPT;

std::unique_ptr<GPT> gpt2_small_sized() {
  atencion::Generator generator(42);
  return std::make_unique<GPT>(atencion::bench::gpt2_small_config(0.1), generator);
}

atencion::Tensor random_tokens(int64_t batch, int64_t length, uint64_t seed) {
  atencion::Generator generator(seed);
  const atencion::Tensor draws =
      atencion::uniform({batch * length}, 0, 50257, generator, atencion::DType::Float64);
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < batch * length; ++i) ids.push_back(static_cast<int64_t>(draws.at({i})));
  return atencion::Tensor::from_ids(ids, {batch, length});
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

void finetune_step(benchmark::State& state, bool lora) {
  std::unique_ptr<GPT> model = gpt2_small_sized();
  model->train();
  if (lora) {
    atencion::Generator generator(7);
    atencion::nn::add_lora(*model, {.rank = 8, .alpha = 16, .targets = {"q_proj", "v_proj"}},
                           generator);
  }
  std::vector<atencion::Variable> trainable;
  int64_t count = 0;
  for (const auto& [name, parameter] : atencion::nn::trainable_parameters(*model)) {
    trainable.push_back(parameter);
    count += parameter.value().numel();
  }
  atencion::nn::Adam adam(trainable, {.lr = 1e-4});
  const atencion::Tensor ids = random_tokens(2, 129, 1);
  const atencion::Tensor inputs = ids.narrow(1, 0, 128), targets = ids.narrow(1, 1, 128);
  auto step = [&] {
    adam.zero_grad();
    model->loss(inputs, targets).backward();
    adam.step();
  };
  step();  // warm-up: Adam's m and v are made here
  atencion::Storage::reset_peak_bytes();
  const double cpu_before = process_cpu_seconds();
  for (auto _ : state) step();
  // CPU seconds of every thread: on a shared machine (other jobs, or a job stopped and resumed)
  // a steadier figure than the wall clock; on an idle one, wall ≈ CPU / threads.
  state.counters["cpu_seconds_per_step"] =
      (process_cpu_seconds() - cpu_before) / static_cast<double>(state.iterations());
  double optimizer_bytes = 0;
  for (const auto& [name, buffer] : adam.state_dict())
    optimizer_bytes += static_cast<double>(buffer.numel()) *
                       static_cast<double>(atencion::dtype_size(buffer.dtype()));
  state.counters["trainable_parameters"] = static_cast<double>(count);
  state.counters["optimizer_mib"] = optimizer_bytes / (1 << 20);
  state.counters["peak_tensor_mib"] =
      static_cast<double>(atencion::Storage::peak_bytes()) / (1 << 20);
}

void full(benchmark::State& state) { finetune_step(state, false); }
void lora(benchmark::State& state) { finetune_step(state, true); }

}  // namespace

BENCHMARK(full)->Name("gpt_finetune/full")->Iterations(2)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(lora)->Name("gpt_finetune/lora")->Iterations(2)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK_MAIN();
