# build/bin/trainer and the library its tests link (docs/trainer.md).
add_library(gz_trainer STATIC
  ${CMAKE_CURRENT_LIST_DIR}/game_files.cc
  ${CMAKE_CURRENT_LIST_DIR}/game_collector.cc
  ${CMAKE_CURRENT_LIST_DIR}/replay_buffer.cc
  ${CMAKE_CURRENT_LIST_DIR}/retention.cc
  ${CMAKE_CURRENT_LIST_DIR}/generation_log.cc
  ${CMAKE_CURRENT_LIST_DIR}/trainer_state.cc
  ${CMAKE_CURRENT_LIST_DIR}/server_reload.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_trainer.cc
  ${CMAKE_CURRENT_LIST_DIR}/trainer_start.cc
  ${CMAKE_CURRENT_LIST_DIR}/trainer.cc)
target_include_directories(gz_trainer PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(gz_trainer PUBLIC gomoku_core gomoku_net ${TORCH_LIBRARIES})

add_executable(trainer ${CMAKE_CURRENT_LIST_DIR}/main.cc)
target_link_libraries(trainer PRIVATE gz_trainer)
