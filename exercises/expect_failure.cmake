# exercises/expect_failure.cmake — runs a judge built with a wrong or unwritten implementation
# and passes only if the judge failed as a judge should: a non-zero exit, Catch2's summary of
# failed test cases (so the program did not crash before judging), and EXPECT in the report.
#   cmake -DPROGRAM=<judge program> [-DTEST=<test case name>] -DEXPECT=<text>
#         -P expect_failure.cmake
# With TEST, only that test case runs: it is the one that must fail. (Catch2 reads ',' in a
# name as "or": the names given here have none.) The compact reporter keeps each message on one
# line, so EXPECT is found even when long.
set(arguments --reporter compact)
if(DEFINED TEST)
  list(PREPEND arguments "${TEST}")
endif()
execute_process(COMMAND ${PROGRAM} ${arguments} RESULT_VARIABLE status OUTPUT_VARIABLE report
                ERROR_VARIABLE report)
if(status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} passed its judge, but it should fail:\n${report}")
endif()
if(NOT report MATCHES "Failed (all |both )?[0-9]+ test case")
  message(FATAL_ERROR "${PROGRAM} did not finish judging (exit ${status}):\n${report}")
endif()
string(FIND "${report}" "${EXPECT}" found)
if(found EQUAL -1)
  message(FATAL_ERROR "${PROGRAM} failed, but its report does not say '${EXPECT}':\n${report}")
endif()
message(STATUS "failed as expected:\n${report}")
