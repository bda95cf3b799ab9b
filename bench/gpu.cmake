# GPU checks and benchmark (docs/gpu.md): CUDA builds only.
if(GOMOKU_WITH_CUDA)
  add_executable(bench_gpu bench_gpu.cc)
  target_link_libraries(bench_gpu PRIVATE gomoku_net)
endif()
