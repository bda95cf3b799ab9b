# GPU path, the parts that run on the CPU (docs/gpu.md).  The CUDA kernel and
# CudaForward are checked by bench_gpu on a device machine (tools/gpu_check.sh).
gz_add_test(test_gpu SOURCES test_gpu.cc LIBS gomoku_net TIMEOUT 120)
