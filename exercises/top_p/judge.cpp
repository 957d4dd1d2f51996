// exercises/top_p/judge.cpp — judges exercise::top_p_filter.
// Lesson: docs/15-gpt.md#sampling
#include <catch2/catch.hpp>

#include "exercises/judge_report.h"
#include "exercises/top_p/top_p.h"

using namespace atencion;

namespace {
// The lesson's worked distribution: sorted, 0.40 (id 1), 0.25 (id 3), 0.20 (id 4), 0.10, 0.05.
const std::vector<double> kWorked = {0.05, 0.40, 0.10, 0.25, 0.20};
}  // namespace

TEST_CASE("top_p: the lesson's worked distribution", "[exercise]") {
  INFO("p = 0.5: 0.40 alone is below 0.5, so 0.25 joins (0.65 reaches it) and the rest go");
  CHECK(exercise::top_p_filter(kWorked, 0.5) == std::vector<double>{0, 0.40, 0, 0.25, 0});
  INFO("p = 0.9: 0.40 + 0.25 + 0.20 = 0.85 is below 0.9, so 0.10 joins too");
  CHECK(exercise::top_p_filter(kWorked, 0.9) == std::vector<double>{0, 0.40, 0.10, 0.25, 0.20});
  INFO("p = 1 keeps every token");
  CHECK(exercise::top_p_filter(kWorked, 1.0) == kWorked);
}

TEST_CASE("top_p: the most likely token is always kept", "[exercise]") {
  INFO("p = 0.1 is below the top probability 0.40: the nucleus is that one token");
  CHECK(exercise::top_p_filter(kWorked, 0.1) == std::vector<double>{0, 0.40, 0, 0, 0});
}

TEST_CASE("top_p: equal probabilities are taken in id order", "[exercise]") {
  // p is never exactly a cumulative sum here (0.25, 0.5, 0.75, 1): that is the next test's job.
  const std::vector<double> tied = {0.25, 0.25, 0.25, 0.25};
  CHECK(exercise::top_p_filter(tied, 0.3) == std::vector<double>{0.25, 0.25, 0, 0});
  CHECK(exercise::top_p_filter(tied, 0.6) == std::vector<double>{0.25, 0.25, 0.25, 0});
}

TEST_CASE("top_p: a cumulative sum exactly p stops there (>= p, not > p)", "[exercise]") {
  // Powers of two, so every sum is exact in a double: 0.5 + 0.25 is 0.75 and no rounding away.
  const std::vector<double> halves = {0.125, 0.5, 0.125, 0.25};
  INFO("p = 0.75: the tokens kept before 0.125 already sum to exactly 0.75, which reaches p, so "
       "0.125 and everything after it go; keeping 0.125 means stopping at `> p` for `>= p`");
  CHECK(exercise::top_p_filter(halves, 0.75) == std::vector<double>{0, 0.5, 0, 0.25});
  INFO("p = 0.5: the top token alone is exactly p: it is the whole nucleus");
  CHECK(exercise::top_p_filter(halves, 0.5) == std::vector<double>{0, 0.5, 0, 0});
}
