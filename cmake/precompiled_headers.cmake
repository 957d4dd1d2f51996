# cmake/precompiled_headers.cmake — headers that nearly every file of a target includes, parsed
# once per target (a GCC precompiled header) instead of once per file:
#   atencion_precompile(target HEADER...)       its own, of these headers
#   atencion_precompile(target REUSE_FROM other)  the one of `other` (a library built with the
#                                                 same options), built once for both
# Parsing the C++20 standard headers costs about 1.4 s of CPU a file, nlohmann/json.hpp about
# 4 s and Catch2's header about 2 s, often more than the file's own code at -O3; loading them
# precompiled takes a fraction of that (docs/performance.md#build-time measures it). The code
# generated is the same: only how the headers are read changes. -DATENCION_PRECOMPILED_HEADERS=OFF
# reads them as before. GCC only (the Release build of tools/learn.sh and tools/test.sh): clang,
# of the sanitizer and fuzz builds, refuses rather than ignores a header precompiled with other
# macros, which the REUSE_FROM of examples/CMakeLists.txt shares between targets.
#
# With ccache as the compiler launcher (tools/packages.sh), a file that uses a precompiled header
# is cached only with CCACHE_SLOPPINESS=pch_defines,time_macros and -fpch-preprocess (ccache's
# manual, "Precompiled headers"): the launcher is wrapped in `cmake -E env` to set it for our
# compiles only, without touching the user's ccache configuration.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  option(ATENCION_PRECOMPILED_HEADERS "Precompile the headers most files include" ON)
else()
  option(ATENCION_PRECOMPILED_HEADERS "Precompile the headers most files include" OFF)
endif()

if(ATENCION_PRECOMPILED_HEADERS AND CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache$")
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      ${CMAKE_CXX_COMPILER_LAUNCHER})
  add_compile_options(-fpch-preprocess)
endif()

# Files with options of their own (the kernels' -ffp-contract=off and the like, set in the
# top CMakeLists.txt) read their headers as before: a header precompiled with other options is
# not one GCC may use for them.
function(atencion_precompile target)
  if(NOT ATENCION_PRECOMPILED_HEADERS)
    return()
  endif()
  if(ARGV1 STREQUAL "REUSE_FROM")
    target_precompile_headers(${target} REUSE_FROM ${ARGV2})
  else()
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
  get_target_property(sources ${target} SOURCES)
  foreach(source ${sources})
    get_source_file_property(options ${source} COMPILE_OPTIONS)
    if(options)
      set_source_files_properties(${source} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
endfunction()
