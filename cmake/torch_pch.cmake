# Precompiled LibTorch headers (results/benchmarks-log.md, "Build time").
#
# Parsing <torch/torch.h> costs about 13 s of the 20-30 s that a translation
# unit including it takes; about 30 of them do.  The header is precompiled once
# and every target that includes it reuses that copy (REUSE_FROM) instead of
# parsing it again.  GCC accepts a precompiled header only under the same
# -fpic/-fpie setting and the same macros, so the executables among those
# targets compile with -fPIC like the libraries (position-independent code
# links into a PIE executable as well; one copy costs 33 s of CPU less than a
# second one for -fPIE).  GCC warns (-Winvalid-pch, which CMake turns on) and
# parses the header as usual when the copy does not fit; the build never
# depends on it being used.
option(GOMOKU_PCH "Precompile <torch/torch.h> once for every target that includes it" ON)

if(GOMOKU_PCH)
  add_library(gz_torch_pch OBJECT ${CMAKE_CURRENT_LIST_DIR}/torch_pch_host.cc)
  target_link_libraries(gz_torch_pch PRIVATE ${TORCH_LIBRARIES} spdlog::spdlog
                                             nlohmann_json::nlohmann_json)
  target_precompile_headers(gz_torch_pch PRIVATE <torch/torch.h>)
endif()

# gz_use_torch_pch(target... [SKIP source...]): the targets reuse the
# precompiled <torch/torch.h>; the SKIP sources (torch-free files of those
# targets, absolute or relative to the calling folder) compile without it.
function(gz_use_torch_pch)
  if(NOT GOMOKU_PCH)
    return()
  endif()
  cmake_parse_arguments(A "" "" "SKIP" ${ARGN})
  foreach(t ${A_UNPARSED_ARGUMENTS})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "EXECUTABLE")
      # CMake would give an executable -fPIE; the copy was made with -fPIC.
      set_target_properties(${t} PROPERTIES POSITION_INDEPENDENT_CODE OFF)
      target_compile_options(${t} PRIVATE -fPIC)
    endif()
    target_precompile_headers(${t} REUSE_FROM gz_torch_pch)
  endforeach()
  if(A_SKIP)
    set_source_files_properties(${A_SKIP} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  endif()
endfunction()
