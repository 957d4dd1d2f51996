// bench/thread_sweep.h — `threads` as a benchmark argument, so that one run gives a case's
// whole row of thread counts and its parallel efficiency.
//
// A case registered with Apply(thread_sweep) (or with a `threads` argument of its own) runs as
// `case/threads:T` for T = 1, 2, 4, ... below atencion::num_threads() and at num_threads()
// itself (OMP_NUM_THREADS, or the machine's cores): `OMP_NUM_THREADS=16 bench_attention` gives
// 1, 2, 4, 8, 16. report_rate() sets the case's rate counter and `parallel_efficiency`,
//
//   efficiency(T) = rate(T) / (T · rate(1))        (1 = every thread fully used)
//
// from the threads:1 run of the same case earlier in the same process.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

#include "tensor/threads.h"

namespace atencion::bench {

// 1, 2, 4, ... below num_threads(), and num_threads().
inline std::vector<int> thread_counts() {
  std::vector<int> counts;
  const int most = atencion::num_threads();
  for (int threads = 1; threads < most; threads *= 2) counts.push_back(threads);
  counts.push_back(most);
  return counts;
}

// The thread counts as the case's only argument, `threads`.
inline void thread_sweep(benchmark::internal::Benchmark* b) {
  b->ArgName("threads");
  for (int threads : thread_counts()) b->Arg(threads);
}

// The kernels run with `threads` threads while this lives (atencion::set_num_threads).
class UseThreads {
 public:
  explicit UseThreads(int threads) : before_(atencion::num_threads()) {
    atencion::set_num_threads(threads);
  }
  ~UseThreads() { atencion::set_num_threads(before_); }
  UseThreads(const UseThreads&) = delete;
  UseThreads& operator=(const UseThreads&) = delete;

 private:
  int before_;
};

// Sets `counter` to `rate` and, once the same `case_name` ran on one thread in this process,
// `parallel_efficiency` to rate / (threads · that one-thread rate).
inline void report_rate(benchmark::State& state, const std::string& case_name, int threads,
                        const char* counter, double rate) {
  static std::map<std::string, double> one_thread_rate;
  state.counters[counter] = benchmark::Counter(rate);
  if (threads == 1) one_thread_rate[case_name] = rate;
  const auto found = one_thread_rate.find(case_name);
  if (found != one_thread_rate.end() && found->second > 0)
    state.counters["parallel_efficiency"] = benchmark::Counter(rate / (threads * found->second));
}

}  // namespace atencion::bench
