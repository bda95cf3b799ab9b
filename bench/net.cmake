# Network benchmarks (LibTorch).
add_executable(bench_forward bench_forward.cc)
target_link_libraries(bench_forward PRIVATE gomoku_net)
