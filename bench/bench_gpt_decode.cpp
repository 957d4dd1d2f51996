// bench/bench_gpt_decode.cpp — decoding a GPT-2-small-sized model one token at a time, against
// the rate at which this machine can read memory: each new token reads every weight once.
//
//   read_bandwidth/threads:T    sums a 512 MiB float32 array (far larger than any cache) on T
//                               threads (parallel_tasks, as the kernels): `gb_per_second`.
//   gpt_decode/float32/threads:T  examples/gpt's generate(): greedy, 32 new tokens after a
//                               one-token prompt, with the key/value cache, on a GPT of GPT-2
//                               small's shape (vocabulary 50,257, context 1,024, d_model 768,
//                               12 heads, 12 layers: 124M parameters) with random weights from
//                               a fixed seed. `tokens_per_second`; `weight_mb_per_token`: the
//                               bytes of weights one token reads (all but the position table, of
//                               which it reads a row); `bandwidth_fraction`: tokens/s × those
//                               bytes / read_bandwidth at the same T, measured in this process
//                               (so the limit is 1.0).
//
//   build/bench/bench_gpt_decode
//
// The model is built once (a few seconds), on the first case that needs it.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "bench/gpt2_small_config.h"
#include "bench/thread_sweep.h"
#include "gpt/gpt.h"
#include "gpt/generate.h"
#include "tensor/random.h"
#include "tensor/threads.h"

namespace {

using atencion::examples::gpt::GPT;

std::map<int, double>& bandwidth_at() {  // threads -> GB/s, from read_bandwidth
  static std::map<int, double> measured;
  return measured;
}

// Sums `values` in tasks of 1 MiB; each task's partial sum in its own slot.
double summed(const std::vector<float>& values, int threads) {
  constexpr int64_t kTask = 1 << 18;  // floats
  const int64_t tasks = static_cast<int64_t>(values.size()) / kTask;
  std::vector<double> partial(tasks);
  atencion::parallel_tasks(tasks, threads, [&](int64_t task) {
    const float* v = values.data() + task * kTask;
    float lanes[16] = {};
    for (int64_t i = 0; i < kTask; i += 16)
      for (int l = 0; l < 16; ++l) lanes[l] += v[i + l];
    double sum = 0;
    for (float lane : lanes) sum += lane;
    partial[task] = sum;
  });
  double total = 0;
  for (double p : partial) total += p;
  return total;
}

void read_bandwidth(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::vector<float> values(std::size_t(1) << 27, 1.0f);  // 512 MiB
  double bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    benchmark::DoNotOptimize(summed(values, threads));
    bytes += static_cast<double>(values.size() * sizeof(float));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  bandwidth_at()[threads] = bytes / seconds / 1e9;
  state.counters["gb_per_second"] = benchmark::Counter(bytes / seconds / 1e9);
}
BENCHMARK(read_bandwidth)->Apply(atencion::bench::thread_sweep)->UseRealTime();

GPT& gpt2_small() {
  static std::unique_ptr<GPT> model = [] {
    atencion::Generator generator(42);
    return std::make_unique<GPT>(atencion::bench::gpt2_small_config(0), generator);
  }();
  return *model;
}

double weight_bytes_per_token(GPT& model) {
  double bytes = 0;
  for (const auto& parameter : model.parameters())
    bytes += static_cast<double>(parameter.value().numel()) * sizeof(float);
  const auto& positions = model.position_embedding->weight.value();
  return bytes - static_cast<double>(positions.numel() - positions.size(1)) * sizeof(float);
}

void gpt_decode(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  GPT& model = gpt2_small();
  const atencion::bench::UseThreads use_threads(threads);
  atencion::examples::gpt::GenerateOptions options;
  options.max_new_tokens = 32;
  options.sampling.temperature = 0;  // greedy
  double tokens = 0;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    const auto generated = atencion::examples::gpt::generate(model, {464}, options);
    tokens += static_cast<double>(generated.size());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rate = tokens / seconds, bytes = weight_bytes_per_token(model);
  atencion::bench::report_rate(state, "gpt_decode", threads, "tokens_per_second", rate);
  state.counters["weight_mb_per_token"] = benchmark::Counter(bytes / 1e6);
  const auto bandwidth = bandwidth_at().find(threads);
  if (bandwidth != bandwidth_at().end())
    state.counters["bandwidth_fraction"] =
        benchmark::Counter(rate * bytes / (bandwidth->second * 1e9));
}
BENCHMARK(gpt_decode)
    ->Name("gpt_decode/float32")
    ->Apply(atencion::bench::thread_sweep)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
