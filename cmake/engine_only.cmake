# The engine-only flavour (GOMOKU_WITH_TORCH=OFF): the Gomocup engine
# pbrain-gomoku-zero and the terminal game play, with no LibTorch, Boost or
# shared library beyond the C library: the Torch-free layers of common/
# (base, game, data, search, config), the network's native forward
# (common/net/native/), the engine's player (common/match/: gomoku_player) and
# engine/: what the engine programs link, read from their links at the end
# of this file.  Included by the top-level CMakeLists.txt, which then stops.
#
#   Linux:   cmake -S . -B build-lite -DGOMOKU_WITH_TORCH=OFF
#   Windows: cmake -S . -B build-win  -DGOMOKU_WITH_TORCH=OFF \
#                  -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# tools/make_gomocup_folder.sh --lite / --windows configure and build these
# (docs/engine.md "Builds without LibTorch").
#
# Everything links statically (-static): the Linux binaries need nothing, the
# Windows .exe no DLL (libstdc++, libgcc and winpthreads are inside).
# generic (the default): the x86-64 baseline everywhere but the forward's
# kernels, whose AVX2+FMA table is picked at run time (common/net/native/
# kernels.h), so the binary runs on any x86-64 CPU.  avx2 compiles everything
# for AVX2+FMA: it dies of SIGILL, with no message, on a CPU without them, and
# was no faster (docs/benchmarks.md "Engine-only builds: generic against AVX2":
# generic / avx2 1.035 simulations per CPU-second, 2026-12-07).
set(GOMOKU_ENGINE_ISA "generic" CACHE STRING "instruction-set baseline of the engine-only build: generic | avx2")
set_property(CACHE GOMOKU_ENGINE_ISA PROPERTY STRINGS generic avx2)

find_package(Threads REQUIRED)
include(${CMAKE_CURRENT_LIST_DIR}/header_only_deps.cmake)

add_compile_options(-Wall -Wextra -Wno-unused-parameter -Wno-restrict)
if(GOMOKU_ENGINE_ISA STREQUAL "avx2")
  add_compile_options(-mavx2 -mfma)
elseif(NOT GOMOKU_ENGINE_ISA STREQUAL "generic")
  message(FATAL_ERROR "GOMOKU_ENGINE_ISA: unknown value '${GOMOKU_ENGINE_ISA}' (expected avx2 or generic)")
endif()
if(WIN32)
  # The Windows x64 ABI aligns the stack to 16 bytes, and GCC does not realign
  # it for 32-byte AVX spills: an aligned store (vmovaps/vmovdqa) to such a
  # slot crashes under Windows and wine (GCC bug 54412).  The assembler turns
  # every aligned vector move into its unaligned form (binutils >= 2.38), which
  # is as fast on aligned data; AVX arithmetic with memory operands never
  # needed alignment.
  add_compile_options(-Wa,-muse-unaligned-vector-move)
  # windows.h without the min/max macros and the rarely used parts.
  add_compile_definitions(NOMINMAX WIN32_LEAN_AND_MEAN _WIN32_WINNT=0x0601)
endif()
add_link_options(-static)
set(CMAKE_POSITION_INDEPENDENT_CODE OFF)
set(CMAKE_UNITY_BUILD ON)

add_subdirectory(common)
add_subdirectory(engine)

# What this build compiles is read from the links: the programs of engine/
# and every library they link, directly or through others.  The folders of
# common/ define their libraries as in the full build, without asking which
# build this is; those no engine program links (the wire protocol's clients,
# the run status, ratings and the match library's external engines) are left
# out of `all`, so neither the Linux nor the Windows build compiles them.
function(gz_targets_in dir out)  # every target defined in dir and below it
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    gz_targets_in(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()
include(${CMAKE_CURRENT_LIST_DIR}/link_closure.cmake)
gz_targets_in(${PROJECT_SOURCE_DIR}/engine engine_targets)
set(gz_engine_programs "")
foreach(t ${engine_targets})
  get_target_property(type ${t} TYPE)
  if(type STREQUAL "EXECUTABLE")
    list(APPEND gz_engine_programs ${t})
  endif()
endforeach()
gz_link_closure(gz_engine_needs ALL ${gz_engine_programs})
gz_targets_in(${PROJECT_SOURCE_DIR} gz_defined)
foreach(t ${gz_defined})
  if(NOT t IN_LIST gz_engine_needs)
    set_property(TARGET ${t} PROPERTY EXCLUDE_FROM_ALL ON)
  endif()
endforeach()
message(STATUS "gomoku-zero: engine-only build (no LibTorch), ISA ${GOMOKU_ENGINE_ISA}, "
               "${CMAKE_SYSTEM_NAME} ${CMAKE_SYSTEM_PROCESSOR}")

# The WebAssembly engine (browser/, docs/browser.md): only when emscripten
# configures this build (browser/build.sh); added after the closure above, so
# it is the one target of the wasm build besides what the engine programs need.
if(EMSCRIPTEN)
  add_subdirectory(browser)
endif()
