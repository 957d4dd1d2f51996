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

TEST_CASE("PooledTimes: a kind's first figure, then a quarter of each new one", "[threads]") {
  detail::PooledTimes times;
  auto task = [](void*, int64_t) {};
  const uint64_t kind = detail::job_kind(task, 8);
  CHECK(times.figure(kind).job < 0);
  times.note(kind, {4e-3, 1e-3});
  CHECK(times.figure(kind).job == 4e-3);
  CHECK(times.figure(kind).task == 1e-3);
  times.note(kind, {8e-3, 2e-3});
  CHECK(times.figure(kind).job == 5e-3);
  CHECK(times.figure(kind).task == 1.25e-3);
  times.note(kind, {9e-3, -1});  // the caller ran no task: the time per task stays
  CHECK(times.figure(kind).job == 6e-3);
  CHECK(times.figure(kind).task == 1.25e-3);
  // Another task count is another kind, with no figure yet.
  CHECK(detail::job_kind(task, 16) != kind);
  CHECK(times.figure(detail::job_kind(task, 16)).job < 0);
  // A kind that lands on a taken slot replaces the one there.
  uint64_t other = kind + 1;
  while (times.figure(kind).job >= 0) times.note(++other, {1.0, 0.5});
  CHECK(times.figure(other).job == 1.0);
}

TEST_CASE("AloneSpell: a costly wait starts a spell that ends once alone is slower than the pool",
          "[threads]") {
  detail::AloneSpell spell;
  const detail::PoolFigure pool{1e-3, 0.25e-3};  // 4 tasks: 0.25 ms each on the caller
  CHECK_FALSE(spell.alone(0.0));
  spell.costly_wait(1.0, 0.0);
  CHECK(spell.alone(1.0));
  CHECK(spell.alone(1.0 + 0.99 * detail::kAloneMost));
  CHECK_FALSE(spell.alone(1.0 + detail::kAloneMost));  // at most kAloneMost

  // A quiet machine's blip: each job alone takes 1.8 times the pool's. The verdict waits for
  // kJudgeAfter pairs.
  spell.costly_wait(2.0, 0.0);
  for (int pair = 1; pair < detail::kJudgeAfter; ++pair) {
    spell.ran_alone(1.8e-3, 4, pool);
    CHECK(spell.alone(2.01));
  }
  spell.ran_alone(1.8e-3, 4, pool);
  CHECK_FALSE(spell.alone(2.01));

  // Beside busy loops: alone 1.2 ms against the pool's 1.5 ms (its waits for a paused worker
  // included), the spell runs to its end.
  const detail::PoolFigure busy{1.5e-3, 0.3e-3};
  spell.costly_wait(3.0, 0.0);
  for (int pair = 0; pair < 100; ++pair) spell.ran_alone(1.2e-3, 4, busy);
  CHECK(spell.alone(3.0 + 0.99 * detail::kAloneMost));

  // The machine turns quiet in the middle: the sums, halved as the pairs go by, follow it.
  spell.costly_wait(4.0, 0.0);
  for (int pair = 0; pair < 100; ++pair) spell.ran_alone(1.2e-3, 4, busy);
  int pairs = 0;
  while (spell.alone(4.01) && pairs < 1000) {
    spell.ran_alone(0.9e-3, 4, {0.5e-3, 0.2e-3});
    ++pairs;
  }
  CHECK_FALSE(spell.alone(4.01));
  CHECK(pairs < 8 * detail::kJudgeAfter);

  // A new costly wait starts afresh: the old sums are forgotten.
  spell.costly_wait(5.0, 0.0);
  spell.ran_alone(1e-3, 4, pool);
  CHECK(spell.alone(5.01));
}

TEST_CASE("AloneSpell: the wait that started a spell is its credit against the pool's figures",
          "[threads]") {
  detail::AloneSpell spell;
  const detail::PoolFigure pool{1e-3, 0.25e-3};
  // Each job alone costs 0.8 ms more than the pool's: a 5 ms wait pays for 6 of them, not 7.
  spell.costly_wait(1.0, 5e-3);
  for (int pair = 0; pair < 6; ++pair) spell.ran_alone(1.8e-3, 4, pool);
  CHECK(spell.alone(1.01));
  spell.ran_alone(1.8e-3, 4, pool);
  CHECK_FALSE(spell.alone(1.01));
  // A 1 ms wait: the verdict still waits for kJudgeAfter pairs, then ends the spell.
  spell.costly_wait(2.0, 1e-3);
  for (int pair = 1; pair < detail::kJudgeAfter; ++pair) spell.ran_alone(1.8e-3, 4, pool);
  CHECK(spell.alone(2.01));
  spell.ran_alone(1.8e-3, 4, pool);
  CHECK_FALSE(spell.alone(2.01));
  // Alone faster than the pool: the credit only adds to what the spell has won.
  spell.costly_wait(3.0, 1e-3);
  for (int pair = 0; pair < 100; ++pair) spell.ran_alone(0.9e-3, 4, pool);
  CHECK(spell.alone(3.0 + 0.99 * detail::kAloneMost));
}

TEST_CASE("AloneSpell: jobs it cannot set against the pool's end a spell once they outnumber pairs",
          "[threads]") {
  detail::AloneSpell spell;
  const detail::PoolFigure pool{2e-3, 0.5e-3};
  // No figure, or a figure taken on other work (a time per task over kSameWork times apart).
  const detail::PoolFigure none{}, bigger{40e-3, 0.5e-3 * detail::kSameWork * 1.1};
  spell.costly_wait(1.0, 0.0);
  for (int job = 1; job < detail::kJudgeAfter; ++job) {
    spell.ran_alone(1e-3, 4, job % 2 ? none : bigger);
    CHECK(spell.alone(1.01));
  }
  spell.ran_alone(1e-3, 4, none);
  CHECK_FALSE(spell.alone(1.01));
  // Paired jobs that pay keep a spell through as many unpaired ones.
  spell.costly_wait(2.0, 0.0);
  for (int job = 0; job < 10; ++job) spell.ran_alone(1e-3, 4, pool);
  for (int job = 0; job < 10; ++job) spell.ran_alone(1e-3, 4, none);
  CHECK(spell.alone(2.01));
  spell.ran_alone(1e-3, 4, none);
  CHECK_FALSE(spell.alone(2.01));
  // A figure within kSameWork in either direction is the same work.
  spell.costly_wait(3.0, 0.0);
  const detail::PoolFigure near{2e-3, 0.25e-3 * detail::kSameWork * 0.9};
  for (int job = 0; job < 100; ++job) spell.ran_alone(1e-3, 4, near);
  CHECK(spell.alone(3.01));
}
