// bench/bench_matmul.cpp — matmul speed in GFLOP/s (2·m·n·k floating-point operations per
// product), through the public atencion::matmul that the layers call.
// Compare with PyTorch and OpenBLAS: /usr/bin/python3 bench/compare.py (docs/performance.md).
//
// Case names are stable so results can be compared across versions; the square products run at
// 1, 2, 4, ... threads (`/threads:T`, bench/thread_sweep.h) and report their parallel
// efficiency:
//   matmul/N      A·B    for N x N float32 matrices
//   matmul_nt/N   A·Bᵀ   (the backward's dL/dA = G·Bᵀ; attention scores Q·Kᵀ)
//   matmul_tn/N   Aᵀ·B   (the backward's dL/dB = Aᵀ·G)
//   bmm/64x64x64x64   64 products of 64 x 64 by 64 x 64 (one attention head's scores per item)
//   bmm_nt/BxMxNxK, bmm_nn/..., bmm_tn/...   B products op(A) (M x K) · op(B) (K x N) at 1, 2, ...
//                     threads: the shapes of step-by-step attention with B = batch · heads, T
//                     tokens, d_head features: Q·Kᵀ and dO·Vᵀ (nt, T x T x d_head), P·V and
//                     dS·K (nn, T x d_head x T), Pᵀ·dO and dSᵀ·Q (tn, T x d_head x T)
//   micro_kernel/f32  the float32 micro-kernel alone, on packed panels already in L1, one
//                     thread: the ceiling the blocked gemm approaches on one core
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include "bench/thread_sweep.h"
#include "tensor/gemm_kernel.h"
#include "tensor/ops.h"
#include "tensor/random.h"
#include "tensor/tensor.h"

namespace {

using atencion::Tensor;
using atencion::Trans;

// Runs `product` once per benchmark iteration and returns GFLOP/s: 2·m·n·k·batch
// floating-point operations per iteration over the wall-clock time (the threads' time together,
// as a user waits for it; Google Benchmark's own column is CPU time).
template <typename Product>
double gflops_of(benchmark::State& state, double batch, double m, double n, double k,
                 Product product) {
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) product();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double flops = 2.0 * batch * m * n * k * static_cast<double>(state.iterations());
  return flops / seconds * 1e-9;
}

template <typename Product>
void measure_gflops(benchmark::State& state, double batch, double m, double n, double k,
                    Product product) {
  state.counters["gflops"] = benchmark::Counter(gflops_of(state, batch, m, n, k, product));
}

// state.range(0) is n, state.range(1) the threads.
void run_square(benchmark::State& state, Trans trans_a, Trans trans_b) {
  const int64_t n = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  const atencion::bench::UseThreads use_threads(threads);
  atencion::Generator generator(42);
  // Stored so that op(a) and op(b) are n x n either way (square, so the shapes match).
  const Tensor a = atencion::randn({n, n}, generator);
  const Tensor b = atencion::randn({n, n}, generator);
  const double gflops = gflops_of(state, 1, n, n, n, [&] {
    Tensor c = atencion::matmul(a, b, trans_a, trans_b);
    benchmark::DoNotOptimize(c.data<float>());
  });
  const std::string case_name = std::to_string(n) + (trans_a == Trans::Yes ? "T" : "") + "x" +
                                (trans_b == Trans::Yes ? "T" : "");
  atencion::bench::report_rate(state, case_name, threads, "gflops", gflops);
}

void matmul(benchmark::State& state) { run_square(state, Trans::No, Trans::No); }
void matmul_nt(benchmark::State& state) { run_square(state, Trans::No, Trans::Yes); }
void matmul_tn(benchmark::State& state) { run_square(state, Trans::Yes, Trans::No); }

void bmm(benchmark::State& state) {
  const int64_t batch = 64, m = 64, k = 64, n = 64;
  atencion::Generator generator(42);
  const Tensor a = atencion::randn({batch, m, k}, generator);
  const Tensor b = atencion::randn({batch, k, n}, generator);
  measure_gflops(state, batch, m, n, k, [&] {
    Tensor c = atencion::matmul(a, b);
    benchmark::DoNotOptimize(c.data<float>());
  });
}

// B products op(A) (M x K) · op(B) (K x N), as attention's batch · heads makes them; state.range(0)
// is the threads. Stored so that op(a) is m x k and op(b) is k x n.
struct Batched {
  int64_t batch, m, n, k;
  Trans trans_a, trans_b;
  std::string name() const {
    const std::string kind = trans_a == Trans::Yes ? "bmm_tn" : trans_b == Trans::Yes ? "bmm_nt"
                                                                                       : "bmm_nn";
    return kind + "/" + std::to_string(batch) + "x" + std::to_string(m) + "x" +
           std::to_string(n) + "x" + std::to_string(k);
  }
};

void run_batched(benchmark::State& state, const Batched& shape) {
  const int threads = static_cast<int>(state.range(0));
  const atencion::bench::UseThreads use_threads(threads);
  atencion::Generator generator(42);
  const int64_t batch = shape.batch, m = shape.m, n = shape.n, k = shape.k;
  const Tensor a = atencion::randn(
      shape.trans_a == Trans::Yes ? atencion::Shape{batch, k, m} : atencion::Shape{batch, m, k},
      generator);
  const Tensor b = atencion::randn(
      shape.trans_b == Trans::Yes ? atencion::Shape{batch, n, k} : atencion::Shape{batch, k, n},
      generator);
  const double gflops = gflops_of(state, batch, m, n, k, [&] {
    Tensor c = atencion::matmul(a, b, shape.trans_a, shape.trans_b);
    benchmark::DoNotOptimize(c.data<float>());
  });
  atencion::bench::report_rate(state, shape.name(), threads, "gflops", gflops);
}

// The attention shapes of compare.py's mha cases, 256 (batch, head) pairs each: T = 64 tokens
// and d_head = 64 (B32_T64_D512_H8), T = 20 and d_head = 32 (B64_T20_D128_H4), and T = 20,
// d_head = 16. Scores Q·Kᵀ and dO·Vᵀ: nt, T x T x d_head; P·V and dS·K: nn, T x d_head x T;
// Pᵀ·dO and dSᵀ·Q: tn, T x d_head x T.
const bool batched_registered = [] {
  for (const auto& [tokens, d_head] : {std::pair<int64_t, int64_t>{64, 64}, {20, 32}, {20, 16}}) {
    for (const Batched& shape : {Batched{256, tokens, tokens, d_head, Trans::No, Trans::Yes},
                                 Batched{256, tokens, d_head, tokens, Trans::No, Trans::No},
                                 Batched{256, tokens, d_head, tokens, Trans::Yes, Trans::No}}) {
      benchmark::RegisterBenchmark(shape.name().c_str(), run_batched, shape)
          ->Apply(atencion::bench::thread_sweep)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  return true;
}();

void micro_kernel_f32(benchmark::State& state) {
  const auto& kernel = atencion::gemm_detail::best_kernel<float>();
  const int64_t k = 256;  // one k block
  const atencion::Tensor a_panel = atencion::Tensor::full({k * kernel.mr}, 0.001);
  const atencion::Tensor b_panel = atencion::Tensor::full({k * kernel.nr}, 0.001);
  Tensor c = Tensor::zeros({kernel.mr, kernel.nr});
  measure_gflops(state, 1, kernel.mr, kernel.nr, k, [&] {
    kernel.tile[kernel.mr - 1](k, a_panel.data<float>(), b_panel.data<float>(), c.data<float>(),
                               kernel.nr, kernel.nr, false);
    benchmark::DoNotOptimize(c.data<float>());
  });
  state.SetLabel(kernel.name);
}

// Every size at 1, 2, 4, ... threads (as bench/thread_sweep.h counts them).
void square_sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"", "threads"});
  for (int64_t n : {32, 64, 128, 256, 512, 1024, 2048})
    for (int threads : atencion::bench::thread_counts()) b->Args({n, threads});
  b->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK(matmul)->Apply(square_sizes);
BENCHMARK(matmul_nt)->Apply(square_sizes);
BENCHMARK(matmul_tn)->Apply(square_sizes);
BENCHMARK(bmm)->Name("bmm/64x64x64x64")->Unit(benchmark::kMicrosecond);
BENCHMARK(micro_kernel_f32)->Name("micro_kernel/f32");

BENCHMARK_MAIN();
