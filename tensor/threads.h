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

// While one is alive, the kernels the constructing thread calls run on that thread alone, as they
// do inside a task: for a program that runs several computations side by side, one thread each
// (a server's model threads, examples/base/serve/batch_queue.h), where splitting each again would
// only make them wait for one another. The bits are those of any thread count.
class KernelsOnThisThread {
 public:
  KernelsOnThisThread();
  ~KernelsOnThisThread();
  KernelsOnThisThread(const KernelsOnThisThread&) = delete;
  KernelsOnThisThread& operator=(const KernelsOnThisThread&) = delete;

 private:
  bool was_in_task_;
};

namespace detail {

using TaskCall = void (*)(void* context, int64_t task);
void run_tasks(int64_t count, int threads, TaskCall call, void* context);

// True on a worker while it runs a task (and on the caller while it runs one): a kernel called
// there runs on its own thread, since its caller already splits the work.
bool in_parallel_task();

// ---- the caller alone, only while the pool costs more ---------------------------------------
// Lesson: docs/performance.md#the-main-command-beside-busy-loops
// Beside busy programs the scheduler may pause a worker in the middle of a task for a whole time
// slice (~5 ms) while the caller has nothing left but to wait for it. After each job the caller
// compares what it waited for others' tasks with what they saved it: the time it would have
// taken to run those tasks itself, estimated from its own (worked · other_tasks / own_tasks).
// True when the wait cost more, and was longer than kLongWait (seconds): a quiet machine's
// waits (a worker's last task, a late wake-up) are microseconds.
inline constexpr double kLongWait = 1e-3;
bool pool_cost_more(double waited, double worked, int64_t own_tasks, int64_t other_tasks);

// What the pool delivered lately, over jobs of every kind and size alike: the wall time of its
// jobs, waits included, against the time the caller would have taken to run them alone (its own
// time per task in each job, times the job's tasks). Both sums are halved whenever the second
// passes kPoolWindow seconds, so that they hold the last kPoolWindow / 2 to kPoolWindow of work
// and follow a machine that changes. One costly wait on a quiet machine (a worker paused once
// for a few milliseconds) is a small part of that; beside busy loops, where waits come one after
// another, they add up past what the workers save.
inline constexpr double kPoolWindow = 0.2;
class PoolRecord {
 public:
  void note(double job, double alone);  // seconds; alone: the caller's estimate
  bool cost_more() const { return job_ > alone_; }

 private:
  double job_ = 0, alone_ = 0;
};

// A spell of jobs on the caller alone, the workers asleep, for kAloneMost seconds: started after
// a costly wait (pool_cost_more) when the record, that wait included, says the pool has lately
// cost more than the caller alone. While it runs the pool notes nothing, so a spell has no
// verdict of its own to wait for: it ends on the clock, and the pool's next jobs are measured
// afresh. Times are seconds on any steady clock; the pool passes its own, tests made-up ones.
inline constexpr double kAloneMost = 0.5;
class AloneSpell {
 public:
  bool alone(double now) const { return now < until_; }
  // A job ended at `now` after a costly wait; `record` includes it.
  void costly_wait(double now, const PoolRecord& record);

 private:
  double until_ = -1e300;
};

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
