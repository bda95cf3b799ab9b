#!/usr/bin/env bash
# Compile-checks the CUDA-only code of the GPU path on a machine WITHOUT a GPU
# or a CUDA LibTorch (docs/gpu.md):
#   - nvcc compiles common/net/cuda/encode_kernel.cu to an object (full compile);
#   - g++ -fsyntax-only on every C++ file that is compiled only when
#     GOMOKU_WITH_CUDA, against the LibTorch headers (Debian's libtorch-dev
#     ships the ATen/c10 CUDA headers) and the CUDA Toolkit's headers.
# Nothing is linked or run: a CUDA LibTorch is needed for that
# (dev/gpu_check.sh on a device machine).
#
#   dev/check_cuda_build.sh [-j N]
#
# Env: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc),
#      CUDA_HOME (default /usr/local/cuda), TORCH_INCLUDE (default /usr/include),
#      CXX (default g++).  Exit status non-zero if any check fails.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS=2
if [[ "${1:-}" == "-j" && -n "${2:-}" ]]; then JOBS="$2"; fi

CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
NVCC="${NVCC:-$(command -v nvcc || echo "$CUDA_HOME/bin/nvcc")}"
TORCH_INCLUDE="${TORCH_INCLUDE:-/usr/include}"
CXX="${CXX:-g++}"
[[ -x "$NVCC" ]] || { echo "check_cuda_build: no nvcc at $NVCC (set NVCC or CUDA_HOME)" >&2; exit 2; }
[[ -f "$TORCH_INCLUDE/ATen/cuda/CUDAGraph.h" ]] ||
  { echo "check_cuda_build: no ATen CUDA headers under $TORCH_INCLUDE (set TORCH_INCLUDE)" >&2; exit 2; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# Debian's CPU package lacks the generated c10/cuda/impl/cuda_cmake_macros.h
# (it only defines C10_CUDA_BUILD_SHARED_LIBS); a real CUDA LibTorch has it.
CXXFLAGS=(-std=c++20 -fsyntax-only -Wall -Wextra -Wno-unused-parameter -DGOMOKU_WITH_CUDA=1
          -DC10_CUDA_NO_CMAKE_CONFIGURE_FILE -I"$ROOT")
# -isystem /usr/include would break libstdc++'s #include_next; it is searched anyway.
[[ "$TORCH_INCLUDE" != /usr/include ]] && CXXFLAGS+=(-isystem "$TORCH_INCLUDE")
CXXFLAGS+=(-isystem "$TORCH_INCLUDE/torch/csrc/api/include" -isystem "$CUDA_HOME/include")
# Every C++ translation unit that is compiled only in CUDA builds, plus the
# ones whose CUDA branch (#if GOMOKU_WITH_CUDA) must compile too.
CXX_FILES=(common/net/cuda/cuda_forward.cc common/net/net_api.cc common/net/forward_options.cc bench/bench_gpu.cc)

status=0
echo "nvcc: common/net/cuda/encode_kernel.cu"
if ! "$NVCC" -c -std=c++17 -I"$ROOT" -Xcompiler=-Wall,-Wextra -o "$WORK/encode_kernel.o" \
    "$ROOT/common/net/cuda/encode_kernel.cu" >"$WORK/nvcc.log" 2>&1; then
  cat "$WORK/nvcc.log" >&2
  echo "FAIL encode_kernel.cu" >&2
  status=1
else
  cat "$WORK/nvcc.log"
  echo "ok   encode_kernel.cu"
fi

run_one() {
  local f="$1" log="$WORK/${1//\//_}.log"
  if "$CXX" "${CXXFLAGS[@]}" "$ROOT/$f" >"$log" 2>&1; then
    echo "ok   $f"
    [[ -s "$log" ]] && cat "$log"
    return 0
  fi
  cat "$log" >&2
  echo "FAIL $f" >&2
  return 1
}
pids=()
running=0
for f in "${CXX_FILES[@]}"; do
  echo "$CXX -fsyntax-only: $f"
  run_one "$f" &
  pids+=($!)
  running=$((running + 1))
  if (( running >= JOBS )); then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
    running=$((running - 1))
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done

if (( status == 0 )); then
  echo "check_cuda_build: all CUDA-only sources compile (syntax only; nothing linked or run)"
else
  echo "check_cuda_build: FAILED" >&2
fi
exit "$status"
