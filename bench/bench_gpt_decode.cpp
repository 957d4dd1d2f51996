// bench/bench_gpt_decode.cpp — decoding a GPT-2-small-sized model one token at a time, against
// the rate at which this machine can read memory: each new token reads every weight once.
//
//   read_bandwidth/threads:T    sums a 512 MiB float32 array (far larger than any cache) on T
//                               threads (parallel_tasks, as the kernels), in the pages the
//                               packed weights get (tensor/aligned_array.h): `gb_per_second`.
//   gpt_decode/float32/threads:T  examples/gpt's generate(): greedy, 32 new tokens after a
//                               one-token prompt, with the key/value cache, on a GPT of GPT-2
//                               small's shape (vocabulary 50,257, context 1,024, d_model 768,
//                               12 heads, 12 layers: 124M parameters) with random weights from
//                               a fixed seed, copied into panels as atencion-gpt sample
//                               decodes (GPT::use_packed_weights: the same bytes, in one
//                               stream). `tokens_per_second`; `weight_mb_per_token`: the
//                               bytes of weights one token reads (all but the position table, of
//                               which it reads a row). When a read_bandwidth case ran before it
//                               in the process (as in the command below), also
//                               `read_gb_per_second`: its array summed once after each decode, on
//                               the same T threads, so that it sees the machine of the same
//                               seconds (a host's bandwidth moved from 48 to 69 GB/s between two
//                               runs of this program); and `bandwidth_fraction`: tokens/s × those
//                               bytes / read_gb_per_second (1.0: the weights read as fast as the
//                               summing loop reads; the products' read-ahead can beat it).
//   gpt_decode/bfloat16/threads:T the same model with its weights kept as bfloat16
//                               (GPT::use_bfloat16_weights: every Linear and the tied token
//                               embedding, 2 bytes a weight; biases, LayerNorms and the position
//                               row stay 4): weight_mb_per_token and bandwidth_fraction count
//                               those bytes.
//
//   build/bench/bench_gpt_decode
//
// Each model is built once (a few seconds), on the first case that needs it.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "bench/gpt2_small_config.h"
#include "bench/thread_sweep.h"
#include "gpt/gpt.h"
#include "gpt/generate.h"
#include "tensor/aligned_array.h"
#include "tensor/random.h"
#include "tensor/threads.h"

namespace {

using atencion::examples::gpt::GPT;

// Sums `values` in tasks of 1 MiB; each task's partial sum in its own slot.
double summed(const float* values, int64_t count, int threads) {
  constexpr int64_t kTask = 1 << 18;  // floats
  const int64_t tasks = count / kTask;
  std::vector<double> partial(tasks);
  atencion::parallel_tasks(tasks, threads, [&](int64_t task) {
    const float* v = values + task * kTask;
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

// 512 MiB in the pages the packed weights get (huge where the system gives them:
// tensor/aligned_array.h), so that the fraction compares like with like; made by the first
// read_bandwidth case and kept (nullptr until then, so that a process that only decodes, as
// bench/compare.py runs each case, has no half gigabyte more in its peak RSS).
constexpr int64_t kArrayCount = int64_t(1) << 27;
atencion::AlignedArray<float>& summed_array() {
  static atencion::AlignedArray<float> values;
  return values;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void read_bandwidth(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  atencion::AlignedArray<float>& array = summed_array();
  if (!array) {
    array = atencion::aligned_array<float>(kArrayCount);
    std::fill(array.get(), array.get() + kArrayCount, 1.0f);
  }
  const float* values = array.get();
  double bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    benchmark::DoNotOptimize(summed(values, kArrayCount, threads));
    bytes += static_cast<double>(kArrayCount) * sizeof(float);
  }
  state.counters["gb_per_second"] = benchmark::Counter(bytes / seconds_since(start) / 1e9);
}
BENCHMARK(read_bandwidth)->Apply(atencion::bench::thread_sweep)->UseRealTime();

// GPT-2 small's shape, random weights from a fixed seed; with `bfloat16`, kept as bfloat16.
GPT& gpt2_small(bool bfloat16) {
  static std::map<bool, std::unique_ptr<GPT>> models;
  std::unique_ptr<GPT>& model = models[bfloat16];
  if (!model) {
    atencion::Generator generator(42);
    model = std::make_unique<GPT>(atencion::bench::gpt2_small_config(0), generator);
    if (bfloat16)
      model->use_bfloat16_weights();
    else
      model->use_packed_weights();  // as atencion-gpt sample decodes in float32
  }
  return *model;
}

// The bytes of weights one token reads: every parameter but the position table, of which it
// reads a row; 2 bytes a value for the matrices a bfloat16 model keeps as bfloat16.
double weight_bytes_per_token(GPT& model) {
  const bool bfloat16 = model.uses_bfloat16_weights();
  double bytes = 0;
  for (const auto& [name, parameter] : model.named_parameters()) {
    const auto& value = parameter.value();
    if (name == "position_embedding.weight")
      bytes += static_cast<double>(value.size(1)) * sizeof(float);
    else
      bytes += static_cast<double>(value.numel()) * (bfloat16 && value.dim() == 2 ? 2 : 4);
  }
  return bytes;
}

void gpt_decode(benchmark::State& state, bool bfloat16) {
  const int threads = static_cast<int>(state.range(0));
  GPT& model = gpt2_small(bfloat16);
  const atencion::bench::UseThreads use_threads(threads);
  atencion::examples::gpt::GenerateOptions options;
  options.max_new_tokens = 32;
  options.sampling.temperature = 0;  // greedy
  const float* values = summed_array().get();  // nullptr: no read_bandwidth case ran
  double tokens = 0, decoding = 0, summing = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const auto generated = atencion::examples::gpt::generate(model, {464}, options);
    decoding += seconds_since(start);
    tokens += static_cast<double>(generated.size());
    if (values == nullptr) continue;
    state.PauseTiming();  // the array summed once, between two decodes
    const auto summing_start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(summed(values, kArrayCount, threads));
    summing += seconds_since(summing_start);
    state.ResumeTiming();
  }
  const double rate = tokens / decoding, bytes = weight_bytes_per_token(model);
  atencion::bench::report_rate(state, bfloat16 ? "gpt_decode/bfloat16" : "gpt_decode", threads,
                               "tokens_per_second", rate);
  state.counters["weight_mb_per_token"] = benchmark::Counter(bytes / 1e6);
  if (values == nullptr) return;
  const double read_gb_per_second =
      static_cast<double>(state.iterations()) * kArrayCount * sizeof(float) / summing / 1e9;
  state.counters["read_gb_per_second"] = benchmark::Counter(read_gb_per_second);
  state.counters["bandwidth_fraction"] =
      benchmark::Counter(rate * bytes / (read_gb_per_second * 1e9));
}
BENCHMARK_CAPTURE(gpt_decode, float32, false)
    ->Name("gpt_decode/float32")
    ->Apply(atencion::bench::thread_sweep)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(gpt_decode, bfloat16, true)
    ->Name("gpt_decode/bfloat16")
    ->Apply(atencion::bench::thread_sweep)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
