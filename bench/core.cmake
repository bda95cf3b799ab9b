add_executable(bench_mcts ${CMAKE_CURRENT_SOURCE_DIR}/bench_mcts.cc)
target_link_libraries(bench_mcts PRIVATE gomoku_core)
