#!/usr/bin/env bash
# The prepared device-machine check of the GPU path (docs/gpu.md): configures
# and builds bench_gpu against the PyTorch-bundled CUDA LibTorch, then runs it
# (encode kernel bit-for-bit check, CudaForward equivalence, throughput, MFU),
# then bench_selfplay (a), (b) and (c) with 20 workers, the server on the GPU (128x8,
# bf16 + CUDA graphs, device-side encoding, max_wait auto).
# About 6 minutes on the H200 machine (16 cores), the cold build included.
#
#   dev/gpu_check.sh [bench_gpu flags, e.g. --quick]
#
# Output (also under $OUT when set, for the device tool to bring back):
#   gpu_check.log  everything this script printed
#   build.log      CMake configure + build output
#   bench_gpu.txt  bench_gpu's report;  bench_gpu.json  the same as JSON
#   bench_selfplay.txt  bench_selfplay's table (modes a, b and c)
#   selfplay_logs.tgz   its server's and workers' logs
#   engine.txt     the engine at 1 s a move on the GPU and on the CPU
# Env:
#   OUT              where the files go (default: $BUILD/out)
#   GPU_CHECK_BUILD  build directory (default: <repo>/build-gpu-check)
#   PYTHON           the Python that has CUDA torch (default python3)
#   NVCC             nvcc to use (default: one matching torch's CUDA major, searched)
#   CMAKE_PREFIX_PATH  extra prefixes, appended after torch's
#   JOBS             build jobs (default: nproc)
#   SELFPLAY_ARGS    bench_selfplay's arguments (default below; empty string = skip it)
#   SELFPLAY_TIMEOUT its limit in seconds (default 240)
# Debian dependencies (nlohmann-json, spdlog, fmt, boost) travel in the
# ignored folder .deps/: as .deb files in .deps/debs (unpacked into .deps on
# first use; `apt-get download libboost1.74-dev nlohmann-json3-dev
# libspdlog-dev libspdlog1.10 libfmt-dev libfmt9`, 10 MB) or already unpacked.
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

# Debian packages carried as .deb files (.deps/debs) are unpacked on first use.
if [[ -d "$ROOT/.deps/debs" && ! -d "$ROOT/.deps/usr" ]]; then
  for f in "$ROOT"/.deps/debs/*.deb; do dpkg -x "$f" "$ROOT/.deps" || die "cannot unpack $f"; done
  stamp "unpacked $(ls "$ROOT"/.deps/debs | wc -l) packages into .deps"
fi
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
# -k: one try reports every compile error, not the first only.
timeout 360 cmake --build "$BUILD" --target bench_gpu bench_selfplay infer_server infer_ctl worker pbrain-gomoku-zero \
  -j "$JOBS" -- -k >>"$OUT_DIR/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT_DIR/build.log" | head -40; tail -20 "$OUT_DIR/build.log"; die "build (see build.log)"; }
stamp "built"

stamp "run bench_gpu $*"
timeout 150 "$BUILD/bin/bench_gpu" --out "$OUT_DIR/bench_gpu.json" "$@" 2>&1 | tee "$OUT_DIR/bench_gpu.txt"
local rc=${PIPESTATUS[0]}
stamp "bench_gpu exit status $rc"

local sp_args="${SELFPLAY_ARGS-"--workers 20 --games 2 --k 2 --sims 32 --symmetry all8 --net 128x8 --max-wait auto --modes abc --device cuda --server-set server.precision=bf16,server.cuda_graphs=true"}"
if [[ -n "$sp_args" ]]; then
  stamp "run bench_selfplay $sp_args"
  # shellcheck disable=SC2086
  timeout "${SELFPLAY_TIMEOUT:-240}" "$BUILD/bin/bench_selfplay" $sp_args 2>&1 | tee "$OUT_DIR/bench_selfplay.txt"
  stamp "bench_selfplay exit status ${PIPESTATUS[0]}"
  # Its server and worker logs (kept where it did not finish).
  find /tmp -maxdepth 3 -path '/tmp/gz-bench-selfplay-*' \( -name '*.log' -o -name '*.json' \) -print0 2>/dev/null |
    tar czf "$OUT_DIR/selfplay_logs.tgz" --null -T - 2>/dev/null
fi
# The engine as shipped (its default net) at 1 s a move, on the GPU and on
# the CPU: its MESSAGE lines give simulations per move.
local net="$ROOT/nets/gz-15x15-freestyle-2026-12-05.pt" dev
for dev in cuda cpu; do
  stamp "engine on $dev, 1 s a move"
  # One command at a time: input waiting on stdin stops the engine's search.
  { printf 'START 15\nINFO timeout_turn 1000\nINFO timeout_match 1000000\nBEGIN\n'; sleep 1.6
    printf 'TURN 9,9\n'; sleep 1.3; printf 'TURN 5,5\n'; sleep 1.3; printf 'END\n'; } |
    timeout 60 "$BUILD/bin/pbrain-gomoku-zero" --weights "$net" --set inference.device=$dev 2>&1 |
    tee -a "$OUT_DIR/engine.txt"
done
return "$rc"
}

main "$@" 2>&1 | tee "$LOG"
exit "${PIPESTATUS[0]}"
