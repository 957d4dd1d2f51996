// tensor/threads.cpp — how many threads the kernels use, and the pool that runs their tasks.
// Lesson: docs/performance.md#threads-on-a-busy-machine
//
// Why a pool of our own and not an OpenMP parallel region: a region ends at a barrier that every
// thread of the team must reach, so on a machine whose cores are busy with other programs each
// region waits for the scheduler to give the slowest thread its core back (a few milliseconds,
// hundreds of times per training step). Here the caller and the workers take tasks from one
// counter, and the caller waits only for the tasks already taken (tensor/threads.h). When even
// that wait costs more than the workers save (a worker paused in the middle of a task), the caller
// runs the next jobs alone, for as long as alone is not slower than the pool was
// (detail::AloneSpell).
#include "tensor/threads.h"

#include <immintrin.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

namespace atencion {

namespace {

// ---- how many cores ---------------------------------------------------------------------

int affinity_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return std::max(1, omp_get_num_procs());
  return std::max(1, CPU_COUNT(&set));
}

// The cgroup v2 CPU quota, in cores rounded up (a container limited to 1.5 CPUs: 2), or 0 when
// none is set or the file cannot be read. /proc/self/cgroup names the group ("0::/a/b").
int cgroup_cores() {
  std::ifstream groups("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(groups, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  for (const std::string& dir : {"/sys/fs/cgroup" + path, std::string("/sys/fs/cgroup")}) {
    std::ifstream limit(dir + "/cpu.max");
    std::string quota;
    double period = 0;
    if (!(limit >> quota >> period)) continue;
    if (quota == "max" || period <= 0) return 0;
    const double cores = std::ceil(std::atof(quota.c_str()) / period);
    return cores >= 1 ? static_cast<int>(cores) : 1;
  }
  return 0;
}

// Asked once: a system call and two files, and num_threads() is asked by every parallel loop.
int cores() {
  static const int count = [] {
    const int quota = cgroup_cores();
    return quota > 0 ? std::min(quota, affinity_cores()) : affinity_cores();
  }();
  return count;
}

std::atomic<int>& thread_setting() {
  static std::atomic<int> setting{[] {
    const int wanted = std::getenv("OMP_NUM_THREADS") ? omp_get_max_threads() : cores();
    return std::clamp(wanted, 1, cores());
  }()};
  return setting;
}

// ---- waiting: spin a little, yielding, then sleep -------------------------------------------
// A worker that has just finished a task usually gets the next one within microseconds (the next
// op of the same forward pass), so it spins a while before it sleeps; but it yields its core
// between checks, so that on a busy machine the spinning costs the others little.
constexpr auto kSpin = std::chrono::microseconds(50);

template <typename Ready>
bool spin_until(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int round = 1;; ++round) {
    for (int i = 0; i < 16; ++i) {
      if (ready()) return true;
      _mm_pause();
    }
    if (round % 4 == 0) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::yield();
    }
  }
}

thread_local bool in_task = false;

double clock_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One task function serves many shapes (a product's chunks for every matrix of a model), so a
// kind of job is its task function, its task count and the size of a task: the caller's time per
// task, in octaves from 100 ns. Two shapes an octave apart are two kinds, and a job alone is set
// against the pool's figure for jobs of its own size.
uint64_t sized(uint64_t kind, double per_task) {
  const double octave = std::floor(std::log2(std::max(per_task, 1e-7) / 1e-7));
  return kind ^ (static_cast<uint64_t>(std::min(octave, 63.0)) << 32);
}

// ---- the pool ---------------------------------------------------------------------------
// One job at a time: `count` tasks, claimed by compare-and-swap on state_ = count << 32 | next.
// The job's count is in the same word as its next task, so a claim succeeds only on the job that
// is current: a worker that wakes late, after its job ended and another began, either claims a
// task of the new one (which is right) or nothing. A job ends when done_ reaches its count; only
// then may the caller publish the next, so call_ and context_ stay valid while any claimed task
// runs.
class Pool {
 public:
  void run(int64_t count, int threads, detail::TaskCall call, void* context);

 private:
  int64_t run_claimed();  // the number of tasks it ran
  void run_alone(int64_t count, detail::TaskCall call, void* context, double start,
                 uint64_t kind);
  void worker();
  void wait_until_done(uint32_t count);

  std::mutex busy_;  // held by the caller whose job this is
  int workers_ = 0;
  detail::TaskCall call_ = nullptr;
  void* context_ = nullptr;
  std::atomic<uint64_t> state_{0};
  std::atomic<uint32_t> done_{0};
  std::atomic<uint32_t> generation_{0};  // a new job was published
  std::atomic<int> seats_{0};            // workers still allowed to join it
  // The caller's own, under busy_; on cache lines of their own, away from the atomics above that
  // the workers read while they spin.
  alignas(64) detail::PooledTimes pooled_;
  detail::AloneSpell spell_;
};

int64_t Pool::run_claimed() {
  int64_t ran = 0;
  uint64_t state = state_.load(std::memory_order_acquire);
  for (;;) {
    const auto total = static_cast<uint32_t>(state >> 32), next = static_cast<uint32_t>(state);
    if (next >= total) return ran;
    if (!state_.compare_exchange_weak(state, state + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire))
      continue;
    call_(context_, next);
    ++ran;
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == total) done_.notify_one();
    state = state_.load(std::memory_order_acquire);
  }
}

void Pool::worker() {
  uint32_t seen = generation_.load(std::memory_order_acquire);
  for (;;) {
    if (!spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; }))
      generation_.wait(seen, std::memory_order_acquire);
    seen = generation_.load(std::memory_order_acquire);
    if (seats_.fetch_sub(1, std::memory_order_acq_rel) <= 0) continue;
    in_task = true;
    run_claimed();
    in_task = false;
  }
}

void Pool::wait_until_done(uint32_t count) {
  for (;;) {
    const uint32_t done = done_.load(std::memory_order_acquire);
    if (done == count) return;
    if (!spin_until([&] { return done_.load(std::memory_order_acquire) == count; }))
      done_.wait(done, std::memory_order_acquire);
  }
}

void Pool::run(int64_t count, int threads, detail::TaskCall call, void* context) {
  std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
  if (!lock) {  // another thread of the program has the pool: run this job here
    for (int64_t i = 0; i < count; ++i) call(context, i);
    return;
  }
  const double start = clock_seconds();
  const uint64_t kind = detail::job_kind(call, count);  // with its size once it has run
  if (spell_.alone(start)) {  // the workers are not woken: they go to sleep
    run_alone(count, call, context, start, kind);
    return;
  }
  for (; workers_ < threads - 1; ++workers_) std::thread([this] { worker(); }).detach();
  call_ = call;
  context_ = context;
  done_.store(0, std::memory_order_relaxed);
  seats_.store(threads - 1, std::memory_order_relaxed);
  state_.store(static_cast<uint64_t>(count) << 32, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  in_task = true;
  const int64_t own = run_claimed();  // a task that throws ends the program, as in OpenMP
  in_task = false;
  const double worked = clock_seconds();
  wait_until_done(static_cast<uint32_t>(count));
  const double ended = clock_seconds();
  if (detail::pool_cost_more(ended - worked, worked - start, own, count - own)) {
    spell_.costly_wait(ended, ended - worked);  // the wait is the spell's credit, not the figure's
    return;
  }
  if (own <= 0) return;  // no time per task: no size
  const double per_task = (worked - start) / static_cast<double>(own);
  pooled_.note(sized(kind, per_task), {ended - start, per_task});
}

// The same tasks in the same order as on one thread, so the same bits; nothing the workers read
// is touched.
void Pool::run_alone(int64_t count, detail::TaskCall call, void* context, double start,
                     uint64_t kind) {
  in_task = true;
  for (int64_t i = 0; i < count; ++i) call(context, i);
  in_task = false;
  const double took = clock_seconds() - start;
  spell_.ran_alone(took, count, pooled_.figure(sized(kind, took / static_cast<double>(count))));
}

// Made once and never destroyed: its workers sleep until the process ends.
Pool& pool() {
  static Pool* const instance = new Pool;
  return *instance;
}

// No op of the library opens an OpenMP region (nn/'s loops use parallel_for too); one that a
// program adds waits passively: libgomp reads OMP_WAIT_POLICY once, when it
// is loaded, before any constructor of ours or main() runs; the functions in .preinit_array run
// before the constructors of every shared library, so this is the one place to set it. Unset,
// libgomp spins for up to about a millisecond at every barrier, on a core another program needs.
void passive_openmp(int, char**, char**) { setenv("OMP_WAIT_POLICY", "passive", 0); }
[[gnu::section(".preinit_array"), gnu::used]] void (*const set_passive_openmp)(int, char**,
                                                                               char**) =
    passive_openmp;

}  // namespace

int machine_cores() { return cores(); }

int num_threads() { return thread_setting().load(std::memory_order_relaxed); }

void set_num_threads(int threads) {
  const int clamped = std::clamp(threads, 1, cores());
  thread_setting().store(clamped, std::memory_order_relaxed);
  omp_set_num_threads(clamped);
}

KernelsOnThisThread::KernelsOnThisThread() : was_in_task_(in_task) { in_task = true; }

KernelsOnThisThread::~KernelsOnThisThread() { in_task = was_in_task_; }

namespace detail {

bool in_parallel_task() { return in_task || omp_in_parallel(); }

bool pool_cost_more(double waited, double worked, int64_t own_tasks, int64_t other_tasks) {
  if (waited <= kLongWait || own_tasks <= 0) return false;  // no estimate without own tasks
  return waited * static_cast<double>(own_tasks) > worked * static_cast<double>(other_tasks);
}

uint64_t job_kind(TaskCall call, int64_t count) {
  const auto address = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(call));
  return address ^ (static_cast<uint64_t>(count) << 40);
}

// The slot: the top bits of the kind times an odd constant, so that every bit of it counts.
int PooledTimes::slot_of(uint64_t kind) {
  static_assert(kJobKinds == 256);
  return static_cast<int>((kind * 0x9e3779b97f4a7c15ULL) >> 56);
}

PoolFigure PooledTimes::figure(uint64_t kind) const {
  const Slot& slot = slots_[slot_of(kind)];
  return slot.kind == kind ? slot.figure : PoolFigure{};
}

void PooledTimes::note(uint64_t kind, PoolFigure ran) {
  Slot& slot = slots_[slot_of(kind)];
  PoolFigure& figure = slot.figure;
  if (slot.kind != kind || figure.job < 0) {
    slot = {kind, ran};
    return;
  }
  figure.job += (ran.job - figure.job) / 4;
  if (ran.task < 0) return;
  figure.task = figure.task < 0 ? ran.task : figure.task + (ran.task - figure.task) / 4;
}

void AloneSpell::costly_wait(double now, double waited) {
  until_ = now + kAloneMost;
  alone_ = 0;
  pooled_ = waited;
  pairs_ = unpaired_ = 0;
}

bool AloneSpell::same_work(double took, int64_t tasks, PoolFigure pooled) const {
  if (pooled.job < 0 || pooled.task <= 0 || tasks <= 0) return false;
  const double per_task = took / static_cast<double>(tasks);
  return per_task * kSameWork >= pooled.task && per_task <= pooled.task * kSameWork;
}

void AloneSpell::ran_alone(double took, int64_t tasks, PoolFigure pooled) {
  if (!same_work(took, tasks, pooled)) {
    if (++unpaired_ >= kJudgeAfter && unpaired_ > pairs_) until_ = -1e300;
    return;
  }
  alone_ += took;
  pooled_ += pooled.job;
  if (++pairs_ >= kJudgeAfter && alone_ > pooled_) until_ = -1e300;
  if (pairs_ % (kJudgeAfter * 8) == 0) alone_ /= 2, pooled_ /= 2;
}

void run_tasks(int64_t count, int threads, TaskCall call, void* context) {
  if (count <= 0) return;
  threads = static_cast<int>(std::min<int64_t>(std::clamp(threads, 1, cores()), count));
  if (threads == 1 || in_parallel_task() || count > UINT32_MAX) {
    for (int64_t i = 0; i < count; ++i) call(context, i);
    return;
  }
  pool().run(count, threads, call, context);
}

}  // namespace detail

}  // namespace atencion
