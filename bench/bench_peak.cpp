// bench/bench_peak.cpp — this machine's float32 FMA peak, measured: the ceiling that every
// GFLOP/s figure of bench_matmul is a fraction of (bench/compare.py prints the fractions).
//
//   peak/fma/threads:T   T threads (OpenMP), each running a loop of independent fused
//                        multiply-adds on values held in registers: no loads, no stores, so
//                        nothing but the FMA units limits it. GFLOP/s = 2 flops per lane per FMA.
// The widest vectors this CPU has (AVX-512, else AVX2) are picked at run time; the label says
// which. T runs over 1, 2, 4, ... and the number of threads the suite runs with
// (OMP_NUM_THREADS; bench/thread_sweep.h).
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "bench/thread_sweep.h"
#include "tensor/threads.h"

namespace {

// Twelve accumulators: more independent chains than FMA latency × FMA units on current x86
// cores (4 cycles × 2 units), so every cycle can start an FMA on each unit.
constexpr int kChains = 12;

// Each function does `rounds` × kChains FMAs of one vector and returns a value that depends on
// every one of them (so the compiler cannot drop the loop).
__attribute__((target("avx512f"))) float fma_rounds_avx512(int64_t rounds) {
  __m512 chain[kChains];
  for (int c = 0; c < kChains; ++c) chain[c] = _mm512_set1_ps(1.0f + 1e-3f * c);
  const __m512 multiplier = _mm512_set1_ps(0.999999f), addend = _mm512_set1_ps(1e-7f);
  for (int64_t round = 0; round < rounds; ++round) {
    for (int c = 0; c < kChains; ++c) chain[c] = _mm512_fmadd_ps(chain[c], multiplier, addend);
  }
  alignas(64) float lanes[16];
  __m512 total = chain[0];
  for (int c = 1; c < kChains; ++c) total = _mm512_add_ps(total, chain[c]);
  _mm512_store_ps(lanes, total);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

__attribute__((target("avx2,fma"))) float fma_rounds_avx2(int64_t rounds) {
  __m256 chain[kChains];
  for (int c = 0; c < kChains; ++c) chain[c] = _mm256_set1_ps(1.0f + 1e-3f * c);
  const __m256 multiplier = _mm256_set1_ps(0.999999f), addend = _mm256_set1_ps(1e-7f);
  for (int64_t round = 0; round < rounds; ++round) {
    for (int c = 0; c < kChains; ++c) chain[c] = _mm256_fmadd_ps(chain[c], multiplier, addend);
  }
  alignas(32) float lanes[8];
  __m256 total = chain[0];
  for (int c = 1; c < kChains; ++c) total = _mm256_add_ps(total, chain[c]);
  _mm256_store_ps(lanes, total);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

void peak_fma(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const int lanes = avx512 ? 16 : 8;
  constexpr int64_t kRounds = 1 << 22;  // ~50 M FMAs per thread: milliseconds per iteration
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    float sink = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    sink += avx512 ? fma_rounds_avx512(kRounds) : fma_rounds_avx2(kRounds);
    benchmark::DoNotOptimize(sink);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double flops = 2.0 * lanes * kChains * static_cast<double>(kRounds) * threads *
                       static_cast<double>(state.iterations());
  state.counters["gflops"] = benchmark::Counter(flops / seconds * 1e-9);
  state.SetLabel(avx512 ? "avx512" : "avx2");
}

void thread_counts(benchmark::internal::Benchmark* b) {
  b->Apply(atencion::bench::thread_sweep)->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(peak_fma)->Name("peak/fma")->Apply(thread_counts);

BENCHMARK_MAIN();
