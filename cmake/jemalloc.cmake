# cmake/jemalloc.cmake — jemalloc (Debian: libjemalloc-dev) as the allocator of the programs
# that train and measure (atencion-translate, bench/): atencion_use_jemalloc(target).
#
# A training step frees and allocates again a few hundred tensors of a hundred sizes, and the
# translator's batches change shape every step. In glibc's one heap (tensor/storage.cpp keeps
# freed blocks there rather than unmapping them) the holes they leave fit the next blocks badly:
# the translator's benchmark process held 40% more than its tensors' peak. jemalloc keeps each
# size class apart and reuses freed pages for any size, so the process holds little more than
# the tensors (docs/performance.md#memory). PyTorch's CPU tuning guide suggests the same
# (LD_PRELOAD jemalloc or tcmalloc); here the programs link it, with the settings of
# cmake/jemalloc_settings.cpp. The library itself stays allocator-neutral (so do the unit
# tests); without libjemalloc-dev, with -DATENCION_WITH_JEMALLOC=OFF, or in a sanitizer build
# (whose runtime owns malloc), the programs use glibc's malloc as before.
option(ATENCION_WITH_JEMALLOC "Link jemalloc into the programs when found" ON)
set(ATENCION_HAVE_JEMALLOC OFF)
if(ATENCION_WITH_JEMALLOC AND NOT ATENCION_SANITIZE)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(JEMALLOC QUIET IMPORTED_TARGET jemalloc)
  endif()
  if(JEMALLOC_FOUND)
    set(ATENCION_HAVE_JEMALLOC ON)
  else()
    message(STATUS "jemalloc not found (Debian: libjemalloc-dev): the programs use glibc's malloc")
  endif()
endif()

function(atencion_use_jemalloc target)
  if(ATENCION_HAVE_JEMALLOC)
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/jemalloc_settings.cpp)
    target_link_libraries(${target} PRIVATE PkgConfig::JEMALLOC)
  endif()
endfunction()
