# Wire protocol, inference server, remote/fallback evaluators (docs/protocol.md).
gz_add_test(test_wire SOURCES test_wire.cc LIBS gomoku_core TIMEOUT 120)

# These start build/bin/infer_server as a child process.
foreach(t test_server test_server_hostile test_server_cache test_remote_fallback test_remote_e1)
  gz_add_test(${t} SOURCES ${t}.cc LIBS gomoku_net gomoku_core TIMEOUT 300 LABELS server)
  add_dependencies(${t} infer_server infer_ctl)
endforeach()

# Server components in process (cache, adaptive-wait model, Batcher).
gz_add_test(test_server_units SOURCES test_server_units.cc LIBS gomoku_server_lib TIMEOUT 120 LABELS server)

# The job input forms (planes / compact rows for device-side encoding) through a Batcher.
gz_add_test(test_job_input SOURCES test_job_input.cc LIBS gomoku_server_lib TIMEOUT 120 LABELS server)
