# tests/consumer/run.cmake — the "installed package" test, run by CTest as
#   cmake -DATENCION_BUILD_DIR=... -DCONSUMER_SOURCE_DIR=... -DWORK_DIR=... \
#         -DCXX_COMPILER=... -DGENERATOR=... -P run.cmake
# 1. cmake --install the already-built library (component `library`) into WORK_DIR/prefix;
# 2. configure tests/consumer against that prefix only (find_package(atencion CONFIG));
# 3. build it and run it: it prints a tensor sum and exits non-zero if the sum is wrong.
foreach(var ATENCION_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR CXX_COMPILER GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "consumer test: step '${name}' failed (${result}): ${ARGN}")
  endif()
endfunction()

run_step(install ${CMAKE_COMMAND} --install ${ATENCION_BUILD_DIR} --prefix ${prefix}
  --component library)
run_step(configure ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build}
  -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  -DCMAKE_PREFIX_PATH=${prefix})
run_step(build ${CMAKE_COMMAND} --build ${consumer_build})
run_step(run ${consumer_build}/consumer)
