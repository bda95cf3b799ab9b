#!/usr/bin/env bash
# Set-up: installs the Debian packages gomoku-zero needs, then configures and
# builds Release into build/ (binaries in build/bin/).  Idempotent and
# non-interactive.  Extra CMake arguments are passed through, e.g.
#   launch/setup.sh -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
# to build against a CUDA-enabled LibTorch.  Only the Gomocup engine (Linux
# binary and Windows ZIP, no LibTorch): launch/setup-engine.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake
  lld                     # LLVM's linker: a clean build links in 8 s instead of 35 s (results/benchmarks-log.md "Build time")
  libtorch-dev            # LibTorch 1.13 (CPU)
  libopenblas0-pthread    # fast BLAS behind libblas.so.3 (reference BLAS is ~20x slower)
  libboost-dev            # Boost.Asio
  libgloo-dev             # Gloo headers behind LibTorch's ProcessGroupGloo (data-parallel training, train.world_size > 1)
  nlohmann-json3-dev libspdlog-dev catch2
  python3-numpy           # numpy check of game files in the tests
  python3-torch python3-onnx  # the export round trip: a net rebuilt in PyTorch, TorchScript and ONNX (tools/net_to_torch.py)
  procps                  # ps/pkill for the launch scripts
  libjs-chart.js          # Chart.js 3.9, served by gz_dashboard (the page loads nothing from the internet)
  chromium                # headless browser of the dashboard test (tests/dashboard/test_dashboard_browser.sh)
  g++-mingw-w64-x86-64-posix  # the Windows engine's cross build (tools/make_gomocup_folder.sh --windows)
  wine64                  # runs that .exe in ctest's test_windows_engine (docs/engine.md)
  libeigen3-dev           # Eigen 3.4 headers: bench_native_kernels sets the native forward's kernels against Eigen's product
  emscripten nodejs       # the engine as WebAssembly for the browser (browser/build.sh) and its Node test
)

# shellcheck source=launch/apt_packages.sh
. launch/apt_packages.sh
InstallMissing setup "${PACKAGES[@]}"

JOBS="${JOBS:-$(nproc)}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$JOBS"
# The static site (the engine as WebAssembly, the page, the nets) in
# build/browser/site/: docs/browser.md.
JOBS="$JOBS" browser/build.sh
echo "setup: done; binaries in build/bin/, the browser site in build/browser/site/"
ls build/bin
