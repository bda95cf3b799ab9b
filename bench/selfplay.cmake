add_executable(bench_selfplay ${CMAKE_CURRENT_SOURCE_DIR}/bench_selfplay.cc)
target_link_libraries(bench_selfplay PRIVATE gomoku_core gomoku_net)
