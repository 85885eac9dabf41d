# check_exports.cmake -- CTest `exports`: libclhgemm.so must export the public API and nothing
# else. Everything not marked CLHGEMM_API is compiled with hidden visibility; this proves it by
# listing the dynamic symbol table (nm -D --defined-only) and failing on any defined symbol
# whose name does not start with "clhgemm_".
#   cmake -DLIBRARY=<libclhgemm.so> [-DNM=<nm>] -P check_exports.cmake
if(NOT LIBRARY OR NOT EXISTS "${LIBRARY}")
  message(FATAL_ERROR "check_exports: LIBRARY='${LIBRARY}' does not exist")
endif()
if(NOT NM)
  find_program(NM nm)
endif()
execute_process(COMMAND "${NM}" -D --defined-only "${LIBRARY}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_exports: ${NM} -D --defined-only failed (${rc}): ${err}")
endif()

string(REPLACE "\n" ";" lines "${out}")
set(good "")
set(bad "")
foreach(line IN LISTS lines)
  # "<address> <type> <name>[@version]"; type A marks a version node, not a symbol.
  if(line MATCHES "^[0-9a-fA-F]* *([A-Za-z]) ([^ @]+)")
    set(type "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    if(type STREQUAL "A")
      continue()
    endif()
    if(name MATCHES "^clhgemm_")
      list(APPEND good "${name}")
    else()
      list(APPEND bad "${type} ${name}")
    endif()
  endif()
endforeach()

list(LENGTH good ngood)
message(STATUS "check_exports: ${ngood} clhgemm_* symbols exported by ${LIBRARY}")
foreach(name IN LISTS good)
  message(STATUS "  ${name}")
endforeach()
if(bad)
  string(REPLACE ";" "\n  " bad_text "${bad}")
  message(FATAL_ERROR "check_exports: symbols outside the public API are exported:\n  ${bad_text}")
endif()
if(ngood EQUAL 0)
  message(FATAL_ERROR "check_exports: no clhgemm_* symbol is exported at all")
endif()
