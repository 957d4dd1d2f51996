// tests/tensor/test_aligned_array.cpp — tensor/aligned_array.h: small arrays on a cache line,
// arrays of 2 MiB or more on a huge page's boundary and advised to use huge pages (checked in
// /proc/self/smaps where the system gives programs huge pages on request).
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "tensor/aligned_array.h"

using namespace atencion;

namespace {

bool starts_on(const void* data, std::uintptr_t boundary) {
  return reinterpret_cast<std::uintptr_t>(data) % boundary == 0;
}

// The system's transparent huge page mode: "always", "madvise" or "never" ("" if unknown).
std::string huge_page_mode() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(file, line);
  const auto open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos
             ? ""
             : line.substr(open + 1, close - open - 1);
}

// The "THPeligible" of the mapping that holds `address` in /proc/self/smaps (-1 if not found).
int huge_page_eligible(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("THPeligible:", 0) == 0) {
      return std::stoi(line.substr(12));
    }
  }
  return -1;
}

}  // namespace

TEST_CASE("aligned_array: a small array starts on a cache line", "[aligned_array]") {
  for (std::size_t count : {1, 15, 16, 1000}) {
    const AlignedArray<float> values = aligned_array<float>(count);
    CHECK(starts_on(values.get(), 64));
    for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i);  // all writable
    CHECK(values[count - 1] == static_cast<float>(count - 1));
  }
}

TEST_CASE("aligned_array: from 2 MiB on, on a huge page's boundary, in huge pages if the system "
          "gives them",
          "[aligned_array]") {
  const std::size_t count = (std::size_t(3) << 20) / sizeof(float) + 5;  // 3 MiB and a bit
  const AlignedArray<float> values = aligned_array<float>(count);
  CHECK(starts_on(values.get(), std::size_t(2) << 20));
  for (std::size_t i = 0; i < count; ++i) values[i] = 1.0f;
  CHECK(values[count - 1] == 1.0f);
  const std::string mode = huge_page_mode();
  const int eligible = huge_page_eligible(values.get());
  INFO("transparent_hugepage: " << mode << ", THPeligible: " << eligible);
  if ((mode == "always" || mode == "madvise") && eligible != -1) CHECK(eligible == 1);
}

TEST_CASE("aligned_array: a count too large to allocate is refused", "[aligned_array]") {
  CHECK_THROWS_AS(aligned_array<float>(SIZE_MAX / 2), std::bad_alloc);
}
