// bench/bench_tensor.cpp — speed of the tensor/ kernels other than matmul, in GB/s of
// memory touched (bytes read + bytes written per call over wall-clock time): these kernels are
// limited by memory, not arithmetic. Shapes are those of a small Transformer's training step:
// [4096, 512] activations (batch x tokens = 4096, d_model = 512) and [32, 8, 64, 128] attention
// scores. Run: build/bench/bench_tensor (lesson: docs/01-tensor.md).
//
//   add/same        x + y, both contiguous (the unit-stride fast path)
//   add/bias        x + b with b [512] broadcast over rows
//   add/transposed  xᵀ + yᵀ read through strides (the tiled walk)
//   contiguous/t    xᵀ copied to row-major (the tiled walk)
//   heads/merge     [64, 8, 64, 64] -> [64, 64, 8, 64] copy (multi-head attention's concat)
//   sum/rows        sum over dim 0 -> [512] (a bias gradient: the column-block path)
//   sum/last        sum over dim 1 -> [4096] (LayerNorm's statistics)
//   softmax/last    softmax over the last dim of the scores
//   exp             exp(x)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

#include "tensor/ops.h"
#include "tensor/random.h"
#include "tensor/tensor.h"

namespace {

using atencion::Tensor;

// Runs `kernel` once per iteration and reports `gb_per_s`: `bytes` per call over wall-clock time.
template <typename Kernel>
void measure_bandwidth(benchmark::State& state, double bytes, Kernel kernel) {
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    Tensor out = kernel();
    benchmark::DoNotOptimize(out.storage()->data());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  state.counters["gb_per_s"] =
      benchmark::Counter(bytes * static_cast<double>(state.iterations()) / seconds * 1e-9);
}

constexpr int64_t kRows = 4096, kColumns = 512;
constexpr double kMatrixBytes = kRows * kColumns * sizeof(float);

const Tensor& activations() {
  static atencion::Generator generator(1);
  static const Tensor x = atencion::randn({kRows, kColumns}, generator);
  return x;
}
const Tensor& other_activations() {
  static atencion::Generator generator(2);
  static const Tensor y = atencion::randn({kRows, kColumns}, generator);
  return y;
}

void add_same(benchmark::State& state) {
  measure_bandwidth(state, 3 * kMatrixBytes,
                    [] { return atencion::add(activations(), other_activations()); });
}
void add_bias(benchmark::State& state) {
  const Tensor bias = activations().select(0, 0).clone();
  measure_bandwidth(state, 2 * kMatrixBytes, [&] { return atencion::add(activations(), bias); });
}
void add_transposed(benchmark::State& state) {
  measure_bandwidth(state, 3 * kMatrixBytes, [] {
    return atencion::add(activations().t(), other_activations().t());
  });
}
void contiguous_t(benchmark::State& state) {
  measure_bandwidth(state, 2 * kMatrixBytes, [] { return activations().t().contiguous(); });
}
void heads_merge(benchmark::State& state) {
  const Tensor heads = activations().view({64, 8, 64, 64});  // [batch, heads, tokens, head_dim]
  measure_bandwidth(state, 2 * kMatrixBytes,
                    [&] { return heads.transpose(1, 2).contiguous(); });
}
void sum_rows(benchmark::State& state) {
  measure_bandwidth(state, kMatrixBytes, [] { return atencion::sum(activations(), {0}); });
}
void sum_last(benchmark::State& state) {
  measure_bandwidth(state, kMatrixBytes, [] { return atencion::sum(activations(), {1}); });
}
void softmax_last(benchmark::State& state) {
  const Tensor scores = activations().view({32, 8, 64, 128});
  measure_bandwidth(state, 2 * kMatrixBytes, [&] { return atencion::softmax(scores, -1); });
}
void exp(benchmark::State& state) {
  measure_bandwidth(state, 2 * kMatrixBytes, [] { return atencion::exp(activations()); });
}

}  // namespace

BENCHMARK(add_same)->Name("add/same")->UseRealTime();
BENCHMARK(add_bias)->Name("add/bias")->UseRealTime();
BENCHMARK(add_transposed)->Name("add/transposed")->UseRealTime();
BENCHMARK(contiguous_t)->Name("contiguous/t")->UseRealTime();
BENCHMARK(heads_merge)->Name("heads/merge")->UseRealTime();
BENCHMARK(sum_rows)->Name("sum/rows")->UseRealTime();
BENCHMARK(sum_last)->Name("sum/last")->UseRealTime();
BENCHMARK(softmax_last)->Name("softmax/last")->UseRealTime();
BENCHMARK(exp)->Name("exp")->UseRealTime();

BENCHMARK_MAIN();
