// tests/allocator/test_jemalloc_settings.cpp — a program linked as the translator and the
// benchmarks are (cmake/jemalloc.cmake) runs on jemalloc with cmake/jemalloc_settings.cpp:
// memory it frees stays with it, so a block freed and allocated again is not faulted in again.
#include <jemalloc/jemalloc.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Keeps the compiler from dropping a malloc, memset and free whose bytes nothing reads.
void keep(void* block) { asm volatile("" : : "r"(block) : "memory"); }

int failures = 0;
void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  failures += ok ? 0 : 1;
}

}  // namespace

int main() {
  const char* version = nullptr;
  size_t size = sizeof version;
  check(mallctl("version", &version, &size, nullptr, 0) == 0, "malloc is jemalloc's");
  for (const char* option : {"opt.dirty_decay_ms", "opt.muzzy_decay_ms"}) {
    ssize_t decay_ms = 0;
    size = sizeof decay_ms;
    check(mallctl(option, &decay_ms, &size, nullptr, 0) == 0 && decay_ms == -1,
          "freed pages are never handed back (decay -1)");
  }
  // 64 MiB touched, freed, and allocated again as blocks of 48 and 14 MiB (two of jemalloc's
  // size classes, which fit in the 64 MiB with the page it adds to each large block): the
  // pages are the process's already, so this round faults (almost) none in. With the pages
  // handed back (MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0) it faults in all 15,872.
  constexpr size_t kMiB = size_t{1} << 20;
  char* block = static_cast<char*>(std::malloc(64 * kMiB));
  std::memset(block, 1, 64 * kMiB);
  keep(block);
  std::free(block);
  const long before = minor_faults();
  char* first = static_cast<char*>(std::malloc(48 * kMiB));
  char* second = static_cast<char*>(std::malloc(14 * kMiB));
  std::memset(first, 2, 48 * kMiB);
  std::memset(second, 3, 14 * kMiB);
  keep(first);
  keep(second);
  const long faults = minor_faults() - before;
  std::printf("page faults touching 62 MiB again: %ld\n", faults);
  check(faults < 1024, "freed pages are reused without faulting them in again");
  std::free(first);
  std::free(second);
  return failures == 0 ? 0 : 1;
}
