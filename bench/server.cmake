# build/bin/bench_server: server throughput, batching efficiency, per-request overhead.
add_executable(bench_server ${CMAKE_CURRENT_LIST_DIR}/bench_server.cc ${CMAKE_CURRENT_LIST_DIR}/socket_floor.cc)
target_link_libraries(bench_server PRIVATE gomoku_net gomoku_core)
add_dependencies(bench_server infer_server)
