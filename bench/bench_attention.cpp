// bench/bench_attention.cpp — nn::MultiHeadAttention (self-attention, no mask, no dropout),
// forward alone and forward + backward, in tokens per second (batch · tokens per call over
// wall-clock time). Compare with torch.nn.MultiheadAttention: bench/compare.py.
// Every case runs at 1, 2, 4, ... threads (`/threads:T`, bench/thread_sweep.h) and reports its
// parallel efficiency.
//
//   mha_forward/B32_T64_D512_H8            batch 32, 64 tokens, d_model 512, 8 heads
//   mha_forward_backward/B32_T64_D512_H8   the same, then backward from a fixed gradient
//   mha_forward/B64_T20_D128_H4            the tiny translator's shape
//   mha_forward_backward/B64_T20_D128_H4
//   attention_long/T256, T1024, T4096      causal self-attention, forward + backward, over
//                                          B·T = 8,192 tokens (B = 32, 8, 2), d_model 512, 8 heads
//   attention_long_step_by_step/T...       the same on the step-by-step path (set_path), which
//                                          holds the [B, 8, T, T] weights: its memory, for the
//                                          lesson (docs/14-flash-attention.md)
// The attention runs on its default, fused path (nn/scaled_dot_product_attention.h) except in
// the step-by-step cases. compare.py runs each attention_long case in a process of its own and
// reports its peak RSS.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "autograd/variable.h"
#include "nn/masks.h"
#include "nn/multi_head_attention.h"
#include "bench/thread_sweep.h"
#include "tensor/random.h"

namespace {

using atencion::Tensor;
using atencion::Variable;

struct AttentionShape {
  int64_t batch, tokens, d_model, heads;
  bool causal = false;
  bool step_by_step = false;
};

// Runs `step` once per iteration on the case's `threads` and reports `tokens_per_second`
// (batch · tokens per call) and the parallel efficiency.
template <typename Step>
void measure_tokens(benchmark::State& state, const AttentionShape& shape, bool backward,
                    Step step) {
  const int threads = static_cast<int>(state.range(0));
  const atencion::bench::UseThreads use_threads(threads);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) step();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double tokens = static_cast<double>(shape.batch * shape.tokens * state.iterations());
  const std::string case_name = std::to_string(shape.batch) + "x" +
                                std::to_string(shape.tokens) + "x" +
                                std::to_string(shape.d_model) + (backward ? " backward" : "") +
                                (shape.step_by_step ? " step by step" : "");
  atencion::bench::report_rate(state, case_name, threads, "tokens_per_second", tokens / seconds);
}

void run_attention(benchmark::State& state, const AttentionShape& shape, bool backward) {
  atencion::Generator generator(42);
  atencion::nn::MultiHeadAttention attention(shape.d_model, shape.heads, generator);
  if (shape.step_by_step)
    attention.attention->set_path(atencion::nn::ScaledDotProductAttention::Path::StepByStep);
  const Tensor mask = shape.causal ? atencion::nn::causal_mask(shape.tokens) : Tensor();
  const Tensor x_value = atencion::randn({shape.batch, shape.tokens, shape.d_model}, generator);
  const Tensor grad_output =
      atencion::randn({shape.batch, shape.tokens, shape.d_model}, generator);
  measure_tokens(state, shape, backward, [&] {
    Variable x(x_value, /*requires_grad=*/backward);
    Variable y = attention(x, x, x, mask);
    if (backward) {
      y.backward(grad_output);
      attention.zero_grad();
    }
    benchmark::DoNotOptimize(y.value().storage()->data());
  });
}

constexpr AttentionShape kWide{32, 64, 512, 8}, kTiny{64, 20, 128, 4};

void forward_wide(benchmark::State& state) { run_attention(state, kWide, false); }
void forward_backward_wide(benchmark::State& state) { run_attention(state, kWide, true); }
void forward_tiny(benchmark::State& state) { run_attention(state, kTiny, false); }
void forward_backward_tiny(benchmark::State& state) { run_attention(state, kTiny, true); }

// B·T = 8,192 tokens at every length.
void long_case(benchmark::State& state, int64_t tokens, bool step_by_step) {
  run_attention(state, {8192 / tokens, tokens, 512, 8, true, step_by_step}, true);
}
void long_256(benchmark::State& state) { long_case(state, 256, false); }
void long_1024(benchmark::State& state) { long_case(state, 1024, false); }
void long_4096(benchmark::State& state) { long_case(state, 4096, false); }
void long_step_256(benchmark::State& state) { long_case(state, 256, true); }
void long_step_1024(benchmark::State& state) { long_case(state, 1024, true); }
void long_step_4096(benchmark::State& state) { long_case(state, 4096, true); }

}  // namespace

void attention_case(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->Apply(atencion::bench::thread_sweep);
}

BENCHMARK(forward_wide)->Name("mha_forward/B32_T64_D512_H8")->Apply(attention_case);
BENCHMARK(forward_backward_wide)
    ->Name("mha_forward_backward/B32_T64_D512_H8")
    ->Apply(attention_case);
BENCHMARK(forward_tiny)->Name("mha_forward/B64_T20_D128_H4")->Apply(attention_case);
BENCHMARK(forward_backward_tiny)
    ->Name("mha_forward_backward/B64_T20_D128_H4")
    ->Apply(attention_case);

BENCHMARK(long_256)->Name("attention_long/T256")->Apply(attention_case);
BENCHMARK(long_1024)->Name("attention_long/T1024")->Apply(attention_case);
BENCHMARK(long_4096)->Name("attention_long/T4096")->Apply(attention_case);
BENCHMARK(long_step_256)->Name("attention_long_step_by_step/T256")->Apply(attention_case);
BENCHMARK(long_step_1024)->Name("attention_long_step_by_step/T1024")->Apply(attention_case);
BENCHMARK(long_step_4096)->Name("attention_long_step_by_step/T4096")->Apply(attention_case);

BENCHMARK_MAIN();
