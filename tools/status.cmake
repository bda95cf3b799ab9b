add_executable(gz_status ${CMAKE_CURRENT_SOURCE_DIR}/status.cc ${CMAKE_CURRENT_SOURCE_DIR}/status_lib.cc)
target_include_directories(gz_status PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(gz_status PRIVATE gomoku_core gomoku_net)
