# LorgenLinkOrder.cmake - link a target in the order lorgen computes from a profile.
#
#   include(LorgenLinkOrder)
#   lorgen_link_order(TARGET app PROFILE app.prf [more.prf...]
#                     [LINKER bfd|gold|lld]     # default bfd (GNU ld, -T INSERT script)
#                     [LOR app.lor]             # where to write the .LOR (default: build dir)
#                     [OPTIONS --cache-size 16K ...])   # passed to lorgen as they are
#
# lorgen reads the profile and the target's own object files (exact input sections, the object
# each static came from), writes the linker input for LINKER and adds it to the target's link.
# The script is rebuilt when a profile or an object changes, before the target links, and the
# target relinks when the script changes. Compile the target with -ffunction-sections so that
# each function can move on its own. LORGEN_EXECUTABLE names the lorgen binary (default: found
# on PATH).
include_guard(GLOBAL)

function(lorgen_link_order)
  cmake_parse_arguments(LG "" "TARGET;LINKER;LOR" "PROFILE;OPTIONS" ${ARGN})
  if(NOT LG_TARGET OR NOT LG_PROFILE)
    message(FATAL_ERROR "lorgen_link_order: TARGET and PROFILE are required")
  endif()
  if(NOT LG_LINKER)
    set(LG_LINKER bfd)
  endif()
  if(NOT LORGEN_EXECUTABLE)
    find_program(LORGEN_EXECUTABLE lorgen REQUIRED)
  endif()
  if(NOT LG_LOR)
    set(LG_LOR ${CMAKE_CURRENT_BINARY_DIR}/${LG_TARGET}.lor)
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${LG_TARGET}.lorgen)
  # Profiles are named relative to the calling source directory, as other sources are.
  set(profiles "")
  foreach(p IN LISTS LG_PROFILE)
    get_filename_component(p "${p}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND profiles "${p}")
  endforeach()
  if(LG_LINKER STREQUAL "bfd")
    set(out ${dir}/order.ld)
    set(lorgen_out --ld-script ${out})
    set(link_flags "LINKER:-T,${out}")
  elseif(LG_LINKER STREQUAL "gold")
    set(out ${dir}/order.gold)
    set(lorgen_out --gold ${out})
    set(link_flags "LINKER:--section-ordering-file,${out}" "-fuse-ld=gold")
  elseif(LG_LINKER STREQUAL "lld")
    set(out ${dir}/order.lld)
    set(lorgen_out --lld ${out})
    set(link_flags "LINKER:--symbol-ordering-file,${out}" "-fuse-ld=lld")
  else()
    message(FATAL_ERROR "lorgen_link_order: LINKER must be bfd, gold or lld, not ${LG_LINKER}")
  endif()
  # The objects are the target's own: the command runs inside the target's build, after they
  # compile and before it links (the script is one of its sources, and a LINK_DEPENDS).
  set(objects "$<TARGET_OBJECTS:${LG_TARGET}>")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${LORGEN_EXECUTABLE} -q ${LG_OPTIONS} ${profiles} ${objects} -o ${LG_LOR} ${lorgen_out}
    DEPENDS ${profiles} ${objects} ${LORGEN_EXECUTABLE}
    COMMAND_EXPAND_LISTS
    COMMENT "lorgen: link order of ${LG_TARGET} for ${LG_LINKER}"
    VERBATIM)
  set_source_files_properties(${out} PROPERTIES GENERATED TRUE HEADER_FILE_ONLY TRUE)
  target_sources(${LG_TARGET} PRIVATE ${out})
  set_property(TARGET ${LG_TARGET} APPEND PROPERTY LINK_DEPENDS ${out})
  target_link_options(${LG_TARGET} PRIVATE ${link_flags})
endfunction()
