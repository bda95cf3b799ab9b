# The Gomocup protocol engine (pbrain-gomoku-zero) and the terminal game (play).
# engine_core holds everything but main(): protocol state machine, search and
# time management, settings, evaluator source, terminal UI, child-process
# driver (used by tests and managers).
set(GZ_ENGINE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/engine)
add_library(engine_core STATIC
  ${GZ_ENGINE_DIR}/line_input.cc
  ${GZ_ENGINE_DIR}/time_control.cc
  ${GZ_ENGINE_DIR}/tactics.cc
  ${GZ_ENGINE_DIR}/engine_settings.cc
  ${GZ_ENGINE_DIR}/evaluator_source.cc
  ${GZ_ENGINE_DIR}/search_player.cc
  ${GZ_ENGINE_DIR}/gomocup_session.cc
  ${GZ_ENGINE_DIR}/terminal_game.cc
  ${GZ_ENGINE_DIR}/child_process.cc)
target_link_libraries(engine_core PUBLIC gomoku_core gomoku_net Threads::Threads)

add_executable(pbrain-gomoku-zero ${GZ_ENGINE_DIR}/pbrain_main.cc)
target_link_libraries(pbrain-gomoku-zero PRIVATE engine_core)

add_executable(play ${GZ_ENGINE_DIR}/play_main.cc)
target_link_libraries(play PRIVATE engine_core)
