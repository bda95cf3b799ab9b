# The wire protocol and its torch-free clients (docs/protocol.md); part of gomoku_core.
target_sources(gomoku_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/wire.cc
  ${CMAKE_CURRENT_LIST_DIR}/wire_client.cc
  ${CMAKE_CURRENT_LIST_DIR}/remote_evaluator.cc
  ${CMAKE_CURRENT_LIST_DIR}/fallback_evaluator.cc)
