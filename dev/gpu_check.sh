#!/usr/bin/env bash
# The prepared device-machine check of the GPU path (docs/gpu.md): configures
# and builds bench_gpu against the PyTorch-bundled CUDA LibTorch, then runs it
# (encode kernel bit-for-bit check, CudaForward equivalence, throughput, MFU),
# then bench_selfplay (b) and (c) with 20 workers, the server on the GPU (128x8,
# bf16 + CUDA graphs, device-side encoding, max_wait auto).
# Designed to finish well inside 10 minutes on a 16-core machine.
#
#   dev/gpu_check.sh [bench_gpu flags, e.g. --quick]
#
# Output (also under $OUT when set, for the device tool to bring back):
#   gpu_check.log  everything this script printed
#   build.log      CMake configure + build output
#   bench_gpu.txt  bench_gpu's report;  bench_gpu.json  the same as JSON
#   bench_selfplay.txt  bench_selfplay's table (modes b and c)
# Env:
#   OUT              where the files go (default: $BUILD/out)
#   GPU_CHECK_BUILD  build directory (default: <repo>/build-gpu-check)
#   PYTHON           the Python that has CUDA torch (default python3)
#   NVCC             nvcc to use (default: one matching torch's CUDA major, searched)
#   CMAKE_PREFIX_PATH  extra prefixes, appended after torch's
#   JOBS             build jobs (default: nproc)
#   SELFPLAY_ARGS    bench_selfplay's arguments (default below; empty string = skip it)
# Header-only Debian dependencies (nlohmann-json, spdlog, fmt, boost, ...)
# unpacked with `dpkg -x pkg.deb .deps` travel in the ignored folder .deps/:
# .deps/usr is then added to CMAKE_PREFIX_PATH, its include/ to the include
# path and its lib/ to LD_LIBRARY_PATH.
# Exit status: 0 when bench_gpu's checks pass; non-zero otherwise.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${GPU_CHECK_BUILD:-$ROOT/build-gpu-check}"
OUT_DIR="${OUT:-$BUILD/out}"
mkdir -p "$BUILD" "$OUT_DIR"
LOG="$OUT_DIR/gpu_check.log"
START=$(date +%s)
stamp() { echo "[gpu_check +$(( $(date +%s) - START ))s] $*"; }
die() { stamp "FAILED: $*"; exit 1; }

PY="${PYTHON:-python3}"
JOBS="${JOBS:-$(nproc)}"

# The body is not indented because it holds a heredoc.
main() {

stamp "repo $ROOT, build $BUILD, out $OUT_DIR"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
TORCH_PREFIX="$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')" ||
  die "$PY cannot import torch (set PYTHON to a Python with a CUDA build of PyTorch)"
read -r TORCH_VERSION TORCH_CUDA TORCH_CXX11_ABI GPU_ARCH < <("$PY" - <<'EOF'
import torch
cap = torch.cuda.get_device_capability(0) if torch.cuda.is_available() else (0, 0)
print(torch.__version__, torch.version.cuda, int(torch._C._GLIBCXX_USE_CXX11_ABI), f"{cap[0]}{cap[1]}")
EOF
) || die "cannot query torch"
stamp "torch $TORCH_VERSION, CUDA $TORCH_CUDA, CXX11 ABI $TORCH_CXX11_ABI, GPU arch sm_$GPU_ARCH"
[[ "$TORCH_CUDA" != "None" ]] || die "this torch has no CUDA"
[[ "$GPU_ARCH" != "00" ]] || die "torch sees no CUDA device"

# nvcc: prefer one whose major version matches torch's CUDA (one libcudart
# in the process); the CUDA language and Torch's CMake config both need it.
TORCH_CUDA_MAJOR="${TORCH_CUDA%%.*}"
nvcc_major() { "$1" --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\..*/\1/p'; }
if [[ -z "${NVCC:-}" ]]; then
  PIP_NVCC="$("$PY" -c 'import nvidia.cuda_nvcc as m, os; print(os.path.join(list(m.__path__)[0], "bin", "nvcc"))' 2>/dev/null || true)"
  CANDIDATES=("$(command -v nvcc || true)" "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" /usr/local/cuda-"$TORCH_CUDA"/bin/nvcc
              /usr/local/cuda-"$TORCH_CUDA_MAJOR"*/bin/nvcc "$PIP_NVCC" /usr/local/cuda*/bin/nvcc)
  for c in "${CANDIDATES[@]}"; do
    [[ -n "$c" && -x "$c" ]] || continue
    [[ -z "${NVCC:-}" ]] && NVCC="$c"  # first found, if none matches
    if [[ "$(nvcc_major "$c")" == "$TORCH_CUDA_MAJOR" ]]; then NVCC="$c"; break; fi
  done
fi
[[ -n "${NVCC:-}" && -x "$NVCC" ]] || die "no nvcc found (install the CUDA Toolkit $TORCH_CUDA or set NVCC)"
NVCC_MAJOR="$(nvcc_major "$NVCC")"
stamp "nvcc $NVCC (CUDA $NVCC_MAJOR)"
[[ "$NVCC_MAJOR" == "$TORCH_CUDA_MAJOR" ]] ||
  stamp "WARNING: nvcc is CUDA $NVCC_MAJOR but torch is CUDA $TORCH_CUDA: two CUDA runtimes may be mixed"
CUDA_ROOT="$(cd "$(dirname "$NVCC")/.." && pwd)"

PREFIX="$TORCH_PREFIX"
EXTRA_CXX=""
if [[ -d "$ROOT/.deps/usr" ]]; then
  PREFIX="$PREFIX;$ROOT/.deps/usr"
  EXTRA_CXX="-isystem $ROOT/.deps/usr/include"
  export LD_LIBRARY_PATH="$ROOT/.deps/usr/lib/x86_64-linux-gnu:$ROOT/.deps/usr/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  stamp "using .deps/usr"
fi
[[ -n "${CMAKE_PREFIX_PATH:-}" ]] && PREFIX="$PREFIX;$CMAKE_PREFIX_PATH"
# Old PyTorch wheels use the pre-C++11 std::string ABI; everything linked
# with them must too.
[[ "$TORCH_CXX11_ABI" == "0" ]] && EXTRA_CXX="$EXTRA_CXX -D_GLIBCXX_USE_CXX11_ABI=0" &&
  stamp "WARNING: torch uses the old C++ ABI; system libraries (spdlog, fmt) built with the new one may not link"

export TORCH_CUDA_ARCH_LIST="${GPU_ARCH:0:-1}.${GPU_ARCH: -1}"
stamp "configure"
timeout 120 cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGOMOKU_BUILD_TESTS=OFF \
  -DGOMOKU_BUILD_BENCH=ON -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_CUDA_COMPILER="$NVCC" \
  -DCUDAToolkit_ROOT="$CUDA_ROOT" -DCUDA_TOOLKIT_ROOT_DIR="$CUDA_ROOT" -DCMAKE_CUDA_ARCHITECTURES="$GPU_ARCH" -DCMAKE_CXX_FLAGS="$EXTRA_CXX" \
  >"$OUT_DIR/build.log" 2>&1 || { tail -40 "$OUT_DIR/build.log"; die "configure (see build.log)"; }
grep -E "gomoku-zero:|CUDA compiler identification|Found CUDAToolkit" "$OUT_DIR/build.log"
grep -q "CUDA build: ON" "$OUT_DIR/build.log" || die "CMake did not detect a CUDA LibTorch (GOMOKU_WITH_CUDA off)"

stamp "build bench_gpu with $JOBS jobs"
timeout 300 cmake --build "$BUILD" --target bench_gpu bench_selfplay infer_server infer_ctl worker -j "$JOBS" \
  >>"$OUT_DIR/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT_DIR/build.log" | head -40; tail -20 "$OUT_DIR/build.log"; die "build (see build.log)"; }
stamp "built"

stamp "run bench_gpu $*"
timeout 150 "$BUILD/bin/bench_gpu" --out "$OUT_DIR/bench_gpu.json" "$@" 2>&1 | tee "$OUT_DIR/bench_gpu.txt"
local rc=${PIPESTATUS[0]}
stamp "bench_gpu exit status $rc"

local sp_args="${SELFPLAY_ARGS-"--workers 20 --games 4 --k 4 --sims 32 --net 128x8 --max-wait auto --modes bc --device cuda --server-set server.precision=bf16,server.cuda_graphs=true"}"
if [[ -n "$sp_args" ]]; then
  stamp "run bench_selfplay $sp_args"
  # shellcheck disable=SC2086
  timeout 240 "$BUILD/bin/bench_selfplay" $sp_args 2>&1 | tee "$OUT_DIR/bench_selfplay.txt"
  stamp "bench_selfplay exit status ${PIPESTATUS[0]}"
fi
return "$rc"
}

main "$@" 2>&1 | tee "$LOG"
exit "${PIPESTATUS[0]}"
