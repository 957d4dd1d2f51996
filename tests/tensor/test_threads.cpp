// tests/tensor/test_threads.cpp — the thread count and the pool (tensor/threads.cpp).
#include <omp.h>
#include <sched.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "tensor/threads.h"

using namespace atencion;

TEST_CASE("set_num_threads clamps to [1, cores] and drives OpenMP", "[threads]") {
  const int saved = num_threads();
  const int cores = machine_cores();
  CHECK(saved >= 1);
  CHECK(saved <= cores);
  set_num_threads(1);
  CHECK(num_threads() == 1);
  CHECK(omp_get_max_threads() == 1);
  set_num_threads(0);
  CHECK(num_threads() == 1);
  set_num_threads(cores + 100);
  CHECK(num_threads() == cores);
  set_num_threads(saved);
  CHECK(num_threads() == saved);
}

TEST_CASE("machine_cores is at most the cores of the CPU affinity", "[threads]") {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof(set), &set) == 0);
  CHECK(machine_cores() >= 1);
  CHECK(machine_cores() <= CPU_COUNT(&set));
}

TEST_CASE("parallel_tasks runs every task exactly once, for any count and thread count",
          "[threads]") {
  for (int threads : {1, 2, 3, 8}) {
    for (int64_t count : {0, 1, 2, 7, 100, 1000}) {
      std::vector<std::atomic<int>> runs(static_cast<std::size_t>(count));
      for (int repeat = 0; repeat < 20; ++repeat)
        parallel_tasks(count, threads, [&](int64_t task) { runs[task].fetch_add(1); });
      int64_t wrong = 0;
      for (auto& r : runs) wrong += r.load() != 20;
      INFO(threads << " threads, " << count << " tasks");
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("a task's own parallel_tasks runs on the task's thread", "[threads]") {
  std::atomic<int> nested_elsewhere{0}, inner_runs{0};
  parallel_tasks(8, 2, [&](int64_t) {
    CHECK(detail::in_parallel_task());
    const auto outer = std::this_thread::get_id();
    parallel_tasks(4, 2, [&](int64_t) {
      inner_runs.fetch_add(1);
      if (std::this_thread::get_id() != outer) nested_elsewhere.fetch_add(1);
    });
  });
  CHECK(inner_runs.load() == 32);
  CHECK(nested_elsewhere.load() == 0);
  CHECK_FALSE(detail::in_parallel_task());
}

TEST_CASE("KernelsOnThisThread: the thread's kernels run on it alone until the guard ends",
          "[threads]") {
  const auto caller = std::this_thread::get_id();
  std::atomic<int> runs{0}, elsewhere{0};
  const auto count_where = [&](int64_t) {
    runs.fetch_add(1);
    if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
  };
  {
    KernelsOnThisThread alone;
    CHECK(detail::in_parallel_task());
    {
      KernelsOnThisThread nested;  // a second guard leaves the first one's setting behind it
    }
    CHECK(detail::in_parallel_task());
    for (int repeat = 0; repeat < 20; ++repeat) parallel_tasks(64, 2, count_where);
  }
  CHECK(runs.load() == 20 * 64);
  CHECK(elsewhere.load() == 0);
  CHECK_FALSE(detail::in_parallel_task());
}

TEST_CASE("parallel_tasks from two threads of the program at once runs both jobs whole",
          "[threads]") {
  std::vector<std::atomic<int>> first(500), second(500);
  auto run = [](std::vector<std::atomic<int>>& runs) {
    for (int repeat = 0; repeat < 50; ++repeat)
      parallel_tasks(static_cast<int64_t>(runs.size()), 2,
                     [&](int64_t task) { runs[task].fetch_add(1); });
  };
  std::thread other([&] { run(second); });
  run(first);
  other.join();
  int64_t wrong = 0;
  for (auto& r : first) wrong += r.load() != 50;
  for (auto& r : second) wrong += r.load() != 50;
  CHECK(wrong == 0);
}

TEST_CASE("pool_cost_more: a wait longer than the others' tasks would have taken the caller",
          "[threads]") {
  // The caller ran 3 tasks in 3 ms, a worker 1 (about 1 ms of the caller's time).
  CHECK(detail::pool_cost_more(5e-3, 3e-3, 3, 1));          // a paused worker: 5 ms > 1 ms
  CHECK_FALSE(detail::pool_cost_more(0.9e-3, 3e-3, 3, 1));  // below kLongWait: jitter
  CHECK_FALSE(detail::pool_cost_more(5e-3, 40e-3, 4, 4));   // a long job's last task: 5 < 40 ms
  CHECK(detail::pool_cost_more(41e-3, 40e-3, 4, 4));
  CHECK_FALSE(detail::pool_cost_more(5e-3, 0.0, 0, 8));  // the caller ran nothing: no estimate
  CHECK_FALSE(detail::pool_cost_more(0.0, 1e-3, 8, 0));  // no wait at all
  CHECK_FALSE(detail::pool_cost_more(detail::kLongWait, 0.0, 1, 0));
}

TEST_CASE("PoolRecord: the pool's jobs against the caller alone, over the last window of work",
          "[threads]") {
  detail::PoolRecord record;
  CHECK_FALSE(record.cost_more());  // nothing yet
  // A quiet machine: two threads, each job half the caller's time alone (jobs of 0.5 ms to 5 ms,
  // all alike: the record sums seconds, whatever the jobs' sizes).
  for (int job = 0; job < 400; ++job)
    record.note(job % 2 ? 0.25e-3 : 2.5e-3, job % 2 ? 0.5e-3 : 5e-3);
  CHECK_FALSE(record.cost_more());
  // One worker paused once for 12 ms in a job the caller would have run in 0.5 ms: a small part
  // of the window, no more.
  record.note(12.25e-3, 0.5e-3);
  CHECK_FALSE(record.cost_more());
  // Beside busy loops, waits one after another: they add up past what the workers save.
  int jobs = 0;
  while (!record.cost_more() && jobs < 1000) {
    record.note(jobs % 4 == 3 ? 5e-3 : 0.5e-3, 1e-3);
    ++jobs;
  }
  CHECK(record.cost_more());
  // The machine turns quiet again: within a window of work the record follows it.
  double work = 0;
  while (record.cost_more() && work < 10 * detail::kPoolWindow) {
    record.note(0.5e-3, 1e-3);
    work += 1e-3;
  }
  CHECK_FALSE(record.cost_more());
  CHECK(work <= detail::kPoolWindow);
}

TEST_CASE("AloneSpell: a costly wait starts a spell only when the pool has lately cost more",
          "[threads]") {
  detail::AloneSpell spell;
  detail::PoolRecord quiet, busy;
  for (int job = 0; job < 100; ++job) quiet.note(1e-3, 2e-3);
  for (int job = 0; job < 100; ++job) busy.note(3e-3, 2e-3);
  CHECK_FALSE(spell.alone(0.0));
  spell.costly_wait(1.0, quiet);  // a blip of another program: the workers still pay
  CHECK_FALSE(spell.alone(1.0));
  spell.costly_wait(2.0, busy);
  CHECK(spell.alone(2.0));
  CHECK(spell.alone(2.0 + 0.99 * detail::kAloneMost));
  CHECK_FALSE(spell.alone(2.0 + detail::kAloneMost));  // at most kAloneMost
  // A spell that runs is not ended by a costly wait that starts none.
  spell.costly_wait(3.0, busy);
  spell.costly_wait(3.1, quiet);
  CHECK(spell.alone(3.2));
}
