// tests/tensor/test_threads.cpp — the thread count (tensor/threads.cpp).
#include <omp.h>

#include <catch2/catch.hpp>

#include "tensor/threads.h"

using namespace atencion;

TEST_CASE("set_num_threads clamps to [1, cores] and drives OpenMP", "[threads]") {
  const int saved = num_threads();
  const int cores = omp_get_num_procs();
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
