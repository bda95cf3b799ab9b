# End-to-end tests of the whole system (real binaries, real sockets, real files).
foreach(t test_e2e_start_stop test_e2e_order test_e2e_faults test_e2e_stall)
  add_test(NAME ${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(${t} PROPERTIES TIMEOUT 400 LABELS e2e RUN_SERIAL ON
                       ENVIRONMENT "GZ_BIN_DIR=${CMAKE_BINARY_DIR}/bin;OMP_NUM_THREADS=1;OPENBLAS_NUM_THREADS=1")
endforeach()
