// tensor/threads.h — how many threads the kernels use, and the one way they share work.
// Lesson: docs/performance.md#threads-on-a-busy-machine
//
// The default is OMP_NUM_THREADS if set, else the cores this process may use (its CPU affinity,
// and its cgroup's CPU quota where one is set); never more than those cores.
//
// parallel_tasks(count, threads, task) runs task(0) ... task(count - 1) on the calling thread and
// up to threads - 1 of the library's workers. The tasks are taken one at a time from a shared
// counter, and the caller waits only for the tasks already taken, never for a worker to arrive:
// on a busy machine, a worker that the scheduler has paused delays at most the one task it holds,
// and when it is not running at all the caller simply does every task itself. A task must write
// outputs no other task writes, so that the bits never depend on who ran it.
#pragma once

#include <cstdint>
#include <type_traits>

namespace atencion {

int num_threads();
void set_num_threads(int threads);  // clamps to [1, cores]

// Below this much work (elements, or elements × cost per element) a kernel runs on one thread:
// starting threads costs more. parallel_for (below) uses it, for tensor/ and nn/ alike.
inline constexpr int64_t kParallelThreshold = 32768;

// The cores this process may use: sched_getaffinity's count, lowered to the cgroup v2 quota
// (cpu.max "quota period": ceil(quota / period)) where one is set.
int machine_cores();

namespace detail {

using TaskCall = void (*)(void* context, int64_t task);
void run_tasks(int64_t count, int threads, TaskCall call, void* context);

// True on a worker while it runs a task (and on the caller while it runs one): a kernel called
// there runs on its own thread, since its caller already splits the work.
bool in_parallel_task();

}  // namespace detail

template <typename Fn>
void parallel_tasks(int64_t count, int threads, Fn&& task) {
  using Task = std::remove_reference_t<Fn>;
  detail::run_tasks(
      count, threads,
      [](void* context, int64_t i) { (*static_cast<Task*>(context))(i); },
      const_cast<void*>(static_cast<const void*>(&task)));
}

// Tasks per thread for a loop split into equal runs: enough that a thread the machine pauses
// holds back a small share, few enough that each run is long.
inline constexpr int64_t kTasksPerThread = 4;

// The loops of the kernels and of nn/: [0, count) cut into up to kTasksPerThread · threads runs
// of consecutive indices, body(begin, end) once per run, on the pool when the work
// (count · cost_per_item) reaches kParallelThreshold, else on the calling thread in one run.
// The runs depend on the thread count; a body whose outputs are per index (no sum across
// indices) gives the same bits for any count.
template <typename Body>
void parallel_for_ranges(int64_t count, int64_t cost_per_item, Body&& body) {
  const int threads = num_threads();
  if (count * cost_per_item < kParallelThreshold || threads == 1 || count < 2) {
    if (count > 0) body(int64_t{0}, count);
    return;
  }
  const int64_t tasks = count < kTasksPerThread * threads ? count : kTasksPerThread * threads;
  parallel_tasks(tasks, threads, [&](int64_t task) {
    body(count * task / tasks, count * (task + 1) / tasks);
  });
}

// The same, fn(i) for every i.
template <typename Fn>
void parallel_for(int64_t count, int64_t cost_per_item, Fn&& fn) {
  parallel_for_ranges(count, cost_per_item, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) fn(i);
  });
}

}  // namespace atencion
