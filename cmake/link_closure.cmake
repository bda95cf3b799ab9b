# gz_link_closure(OUT PUBLIC|ALL target...): OUT is the targets and every
# target they reach through their links, each once.
#   PUBLIC: the links a consumer compiles with (INTERFACE_LINK_LIBRARIES as
#           they stand; a static library's PRIVATE link, $<LINK_ONLY:x>, is
#           not followed): whose usage requirements (flags, include folders)
#           reach a target linking them (tests/CMakeLists.txt).
#   ALL:    every link, PRIVATE ones included: what must be built to link
#           them (cmake/engine_only.cmake).
# Entries that are not targets (library files, linker flags) are left out.
function(gz_link_closure out mode)
  set(seen "")
  set(todo ${ARGN})
  while(todo)
    list(POP_FRONT todo t)
    if(mode STREQUAL "ALL")
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.+)>$" "\\1" t "${t}")
    endif()
    if(t IN_LIST seen OR NOT TARGET ${t})
      continue()
    endif()
    list(APPEND seen ${t})
    set(props INTERFACE_LINK_LIBRARIES)
    if(mode STREQUAL "ALL")
      list(APPEND props LINK_LIBRARIES)
    endif()
    foreach(p ${props})
      get_target_property(deps ${t} ${p})
      if(deps)
        list(APPEND todo ${deps})
      endif()
    endforeach()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()
