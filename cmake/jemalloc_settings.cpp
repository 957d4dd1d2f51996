// cmake/jemalloc_settings.cpp — the settings of the programs that link jemalloc
// (cmake/jemalloc.cmake). jemalloc reads this string when it starts; MALLOC_CONF in the
// environment still overrides it.
//
//   dirty_decay_ms:-1, muzzy_decay_ms:-1   pages freed stay with the process for the next
//       allocation, of any size, and are never handed back to the system. A training step
//       reuses them all; handed back after jemalloc's default 10 s, the next step would fault
//       every page in again (a hundred thousand page faults a step, a quarter of the step in
//       system time). The same choice tensor/storage.cpp makes for glibc's malloc.
//       docs/performance.md#page-faults
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";
}
