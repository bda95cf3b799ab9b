# Tests of the torch-free core (one file per module).
gz_add_test(test_board SOURCES test_board.cc LIBS gomoku_core)
gz_add_test(test_symmetry SOURCES test_symmetry.cc LIBS gomoku_core)
gz_add_test(test_encoder SOURCES test_encoder.cc LIBS gomoku_core)
gz_add_test(test_mcts SOURCES test_mcts.cc LIBS gomoku_core)
gz_add_test(test_selfplay SOURCES test_selfplay.cc LIBS gomoku_core)
gz_add_test(test_game_record SOURCES test_game_record.cc LIBS gomoku_core)
gz_add_test(test_config SOURCES test_config.cc LIBS gomoku_core)
gz_add_test(test_run_layout SOURCES test_run_layout.cc LIBS gomoku_core gomoku_arena)
