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
