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

// ---- the caller alone, kept only while it pays ---------------------------------------------
// Lesson: docs/performance.md#the-main-command-beside-busy-loops
// Beside busy programs the scheduler may pause a worker in the middle of a task for a whole time
// slice (~5 ms) while the caller has nothing left but to wait for it. After each job the caller
// compares what it waited for others' tasks with what they saved it: the time it would have
// taken to run those tasks itself, estimated from its own (worked · other_tasks / own_tasks).
// True when the wait cost more, and was longer than kLongWait (seconds): a quiet machine's
// waits (a worker's last task, a late wake-up) are microseconds.
inline constexpr double kLongWait = 1e-3;
bool pool_cost_more(double waited, double worked, int64_t own_tasks, int64_t other_tasks);

// What the pool delivered for each kind of job (job_kind: its task function and task count; the
// pool adds the size of a task, tensor/threads.cpp): the wall time of the job, waits included,
// and the caller's own time per task, each averaged over the kind's recent runs (each new one
// weighs a quarter). One task function may serve many shapes (a product's chunks, say), so the
// time per task tells whether a job is the work the figure was taken on. A table of kJobKinds
// slots; a kind that lands on a taken slot replaces it.
struct PoolFigure {
  double job = -1, task = -1;  // seconds; negative: none
};
inline constexpr int kJobKinds = 256;
class PooledTimes {
 public:
  PoolFigure figure(uint64_t kind) const;  // negative times when the kind has none
  void note(uint64_t kind, PoolFigure ran);

 private:
  static int slot_of(uint64_t kind);
  struct Slot {
    uint64_t kind = 0;
    PoolFigure figure;
  };
  Slot slots_[kJobKinds];
};
uint64_t job_kind(TaskCall call, int64_t count);

// A spell of jobs on the caller alone, the workers asleep. A costly wait starts one, for at most
// kAloneMost seconds, with that wait as its credit: the spell is worth it while what the jobs
// alone cost beyond the pool's figures stays below the wait it avoids. The job that waited is
// not noted in its kind's figure (PooledTimes), so that one long wait, which on a quiet machine
// is a blip of another program, does not make the pool look slow for every job of the spell.
// While it runs, each job the caller runs alone is paired with the pool's figure for its kind,
// when there is one and its time per task is within a factor of kSameWork of the caller's alone
// (the same work). Once kJudgeAfter pairs are in and alone took longer in sum than the pool's
// figures and the credit, or once kJudgeAfter jobs could not be paired and they outnumber the
// pairs, the spell ends. The sums are halved every kJudgeAfter · 8 pairs, so that the verdict
// follows a machine that changes. Times are seconds on any steady clock; the pool passes its
// own, tests made-up ones.
inline constexpr double kAloneMost = 0.5, kSameWork = 4;
inline constexpr int kJudgeAfter = 4;
class AloneSpell {
 public:
  bool alone(double now) const { return now < until_; }
  // A costly wait of `waited` ended at now: start (or restart) a spell.
  void costly_wait(double now, double waited);
  // A job of `tasks` tasks run alone took `took`; `pooled` is the pool's figure for its kind.
  void ran_alone(double took, int64_t tasks, PoolFigure pooled);

 private:
  bool same_work(double took, int64_t tasks, PoolFigure pooled) const;
  double until_ = -1e300, alone_ = 0, pooled_ = 0;
  int pairs_ = 0, unpaired_ = 0;
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
