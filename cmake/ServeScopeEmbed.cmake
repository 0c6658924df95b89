# Embeds text files into a Qt-free static library so the CLI, the GUI and the tests share the
# built-in catalog, model zoo and demo without looking for files at run time.
set(SERVESCOPE_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/embed_resources.cmake")

function(servescope_embed_files target)
  cmake_parse_arguments(ARG "" "BASE_DIR" "FILES" ${ARGN})
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/${target}_embedded.cpp")
  set(abs_files "")
  foreach(f IN LISTS ARG_FILES)
    list(APPEND abs_files "${ARG_BASE_DIR}/${f}")
  endforeach()
  string(REPLACE ";" "|" files_arg "${ARG_FILES}")
  add_custom_command(OUTPUT "${generated}"
    COMMAND ${CMAKE_COMMAND} "-DOUT=${generated}" "-DBASE_DIR=${ARG_BASE_DIR}"
            "-DFILES=${files_arg}" -P "${SERVESCOPE_EMBED_SCRIPT}"
    DEPENDS ${abs_files} "${SERVESCOPE_EMBED_SCRIPT}"
    COMMENT "Embedding resources into ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE "${generated}")
endfunction()
