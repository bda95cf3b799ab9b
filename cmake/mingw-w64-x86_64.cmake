# Toolchain file: cross-compiles for 64-bit Windows on Debian with
# g++-mingw-w64-x86-64-posix (the "posix" thread model: std::thread and
# std::mutex need it; the win32 model of GCC 12 has neither).  Used by the
# engine-only flavour (GOMOKU_WITH_TORCH=OFF, cmake/engine_only.cmake), which
# links everything statically, so the .exe needs no DLL beside it:
#   cmake -S . -B build-win -DGOMOKU_WITH_TORCH=OFF \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# (tools/make_gomocup_folder.sh --windows does exactly this.)
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(GZ_MINGW_PREFIX x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${GZ_MINGW_PREFIX}-gcc-posix)
set(CMAKE_CXX_COMPILER ${GZ_MINGW_PREFIX}-g++-posix)
set(CMAKE_RC_COMPILER ${GZ_MINGW_PREFIX}-windres)
# Libraries and headers only from the mingw sysroot, never the host's
# /usr/include (the header-only dependencies come from a build-local copy,
# cmake/header_only_deps.cmake); host programs (none needed) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${GZ_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
