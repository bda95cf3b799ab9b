# Engine (tools/engine): protocol state machine in-process, the real binaries
# driven through pipes, and engine-vs-engine games.
gz_add_test(test_engine_protocol SOURCES test_engine_protocol.cc LIBS engine_core TIMEOUT 120)

gz_add_test(test_engine_manager SOURCES test_engine_manager.cc LIBS engine_core TIMEOUT 300)
add_dependencies(test_engine_manager pbrain-gomoku-zero play)

gz_add_test(test_engine_match SOURCES test_engine_match.cc LIBS engine_core gomoku_net TIMEOUT 300)
add_dependencies(test_engine_match pbrain-gomoku-zero)
