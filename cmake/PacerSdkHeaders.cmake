# The SDK's headers: <pacer/algorithm.h>, <pacer/testing.h> and every Pacer header they include,
# directly or not.
# Only these are installed (under include/pacer/), so a plugin cannot come to depend on an
# internal header by accident; the list follows the includes, so it cannot drift from them.
#
#   pacer_sdk_headers(headers)   # -> src/algorithms/training_algorithm.h;src/core/error.h;...
#   foreach(h IN LISTS headers) ... endforeach()
#
# Quoted includes resolve against src/ (the layers' include root) or the including file's folder;
# one that resolves to neither is a configure error, because the installed SDK would not compile.
function(pacer_sdk_headers out_var)
  set(pending "${CMAKE_SOURCE_DIR}/include/pacer/algorithm.h" "${CMAKE_SOURCE_DIR}/include/pacer/testing.h")
  set(found "")
  while(pending)
    list(POP_FRONT pending header)
    file(STRINGS "${header}" lines REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
    get_filename_component(here "${header}" DIRECTORY)
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" included "${line}")
      set(resolved "")
      foreach(base "${CMAKE_SOURCE_DIR}/src" "${here}")
        if(EXISTS "${base}/${included}")
          get_filename_component(resolved "${base}/${included}" ABSOLUTE)
          break()
        endif()
      endforeach()
      if(NOT resolved)
        message(FATAL_ERROR "pacer SDK: ${header} includes \"${included}\", which is neither under src/ nor beside it")
      endif()
      if(resolved MATCHES "/include/pacer/[^/]+$")  # one root including the other
        continue()
      endif()
      if(NOT resolved IN_LIST found)
        list(APPEND found "${resolved}")
        list(APPEND pending "${resolved}")
      endif()
    endforeach()
  endwhile()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# pacer_install_sdk_headers(): installs those headers under include/pacer/ with their folder
# (include/pacer/algorithms/training_algorithm.h), and <pacer/algorithm.h> itself.
function(pacer_install_sdk_headers)
  pacer_sdk_headers(headers)
  foreach(header IN LISTS headers)
    file(RELATIVE_PATH relative "${CMAKE_SOURCE_DIR}/src" "${header}")
    if(relative MATCHES "^\\.\\.")
      message(FATAL_ERROR "pacer SDK: ${header} is outside src/; SDK headers live in the layers")
    endif()
    get_filename_component(folder "${relative}" DIRECTORY)
    install(FILES "${header}" DESTINATION "include/pacer/${folder}")
  endforeach()
  install(FILES "${CMAKE_SOURCE_DIR}/include/pacer/algorithm.h" "${CMAKE_SOURCE_DIR}/include/pacer/testing.h"
          DESTINATION include/pacer)
  # An include added to one of them changes the list: configure again when they change.
  set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${headers} "${CMAKE_SOURCE_DIR}/include/pacer/algorithm.h" "${CMAKE_SOURCE_DIR}/include/pacer/testing.h")
endfunction()
