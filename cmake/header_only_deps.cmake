# The header-only dependencies of the engine-only flavour (engine_only.cmake),
# from a build-local include folder: nlohmann_json, and spdlog with fmt in
# header-only mode (no libspdlog/libfmt to link, so the binaries are static).
#
# The headers are copied at configure time from GOMOKU_HEADERS_FROM (default
# /usr/include, where Debian's nlohmann-json3-dev, libspdlog-dev and
# libfmt-dev put them) into <build>/third_party/include, and only that folder
# is on the include path: a cross build (mingw) must not see the host's
# /usr/include wholesale (glibc's headers would shadow the mingw ones).
# Debian's spdlog is configured for an external fmt (SPDLOG_FMT_EXTERNAL in
# its tweakme.h); FMT_HEADER_ONLY makes that fmt header-only too.
#
# Defines the imported targets nlohmann_json::nlohmann_json and
# spdlog::spdlog that the libraries link, as find_package would.
set(GOMOKU_HEADERS_FROM "/usr/include" CACHE PATH
    "where the header-only dependencies (nlohmann/, spdlog/, fmt/) are copied from")

set(gz_third_party_include ${CMAKE_BINARY_DIR}/third_party/include)
foreach(dir nlohmann spdlog fmt)
  if(NOT IS_DIRECTORY ${GOMOKU_HEADERS_FROM}/${dir})
    message(FATAL_ERROR "header-only dependency ${dir}/ not found in ${GOMOKU_HEADERS_FROM} "
                        "(Debian: apt-get install nlohmann-json3-dev libspdlog-dev libfmt-dev)")
  endif()
  file(COPY ${GOMOKU_HEADERS_FROM}/${dir} DESTINATION ${gz_third_party_include})
endforeach()

add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES ${gz_third_party_include})
add_library(spdlog::spdlog INTERFACE IMPORTED)
set_target_properties(spdlog::spdlog PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES ${gz_third_party_include}
  INTERFACE_COMPILE_DEFINITIONS "FMT_HEADER_ONLY=1")
