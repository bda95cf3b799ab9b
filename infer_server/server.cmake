# The inference server (docs/protocol.md).  gomoku_server_lib holds everything
# but main() so tests and bench_server can reuse pieces.
add_library(gomoku_server_lib STATIC
  ${CMAKE_CURRENT_LIST_DIR}/serving_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/server_stats.cc
  ${CMAKE_CURRENT_LIST_DIR}/result_cache.cc
  ${CMAKE_CURRENT_LIST_DIR}/auto_wait.cc
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_chooser.cc
  ${CMAKE_CURRENT_LIST_DIR}/job_input.cc
  ${CMAKE_CURRENT_LIST_DIR}/batcher.cc
  ${CMAKE_CURRENT_LIST_DIR}/reloader.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_setup.cc
  ${CMAKE_CURRENT_LIST_DIR}/session.cc
  ${CMAKE_CURRENT_LIST_DIR}/server.cc)
target_link_libraries(gomoku_server_lib PUBLIC gomoku_core gomoku_net Boost::boost Threads::Threads)

add_executable(infer_server ${CMAKE_CURRENT_LIST_DIR}/main.cc)
target_link_libraries(infer_server PRIVATE gomoku_server_lib)

# infer_ctl is torch-free: it only speaks the wire protocol.
add_executable(infer_ctl ${CMAKE_CURRENT_LIST_DIR}/ctl_main.cc)
target_link_libraries(infer_ctl PRIVATE gomoku_core)
