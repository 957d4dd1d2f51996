// tests/tensor/detail/test_fast_exp.cpp — tensor/detail/fast_exp.h pinned to std::exp.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "tensor/detail/fast_exp.h"

using atencion::detail::fast_exp;

TEST_CASE("fast_exp: within 2 ulps of std::exp over float's whole normal range", "[fast_exp]") {
  double worst = 0;
  for (float x = -87.0f; x <= 88.0f; x += 0.00173f) {
    const double exact = std::exp(static_cast<double>(x));
    const double ulp = std::nextafter(static_cast<float>(exact), INFINITY) - static_cast<float>(exact);
    worst = std::max(worst, std::abs(fast_exp(x) - exact) / ulp);
  }
  INFO("worst error in ulps: " << worst);
  REQUIRE(worst <= 2.0);
  REQUIRE(fast_exp(0.0f) == 1.0f);
  REQUIRE(fast_exp(1.0f) == Approx(2.718281828f).epsilon(2e-7));
  REQUIRE(fast_exp(-std::numeric_limits<float>::infinity()) == 0.0f);
  REQUIRE(fast_exp(-100.0f) == 0.0f);
  REQUIRE(fast_exp(100.0f) == std::numeric_limits<float>::infinity());
  REQUIRE(std::isnan(fast_exp(std::numeric_limits<float>::quiet_NaN())));
}
