# Tests of the LibTorch network library (tiny nets: 7x7 board, 8 channels).
gz_add_test(test_network SOURCES test_network.cc LIBS gomoku_net TIMEOUT 300)
gz_add_test(test_checkpoint SOURCES test_checkpoint.cc LIBS gomoku_net TIMEOUT 300)
