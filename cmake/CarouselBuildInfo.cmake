# What `carousel version` reports about the build (src/cli/version_command.cpp), as two
# private generated headers under ${CAROUSEL_BUILD_INFO_DIR}/build_info/:
#   build_config.hpp  compiler, build type and compile flags, fixed at configure time;
#   git_commit.hpp    the checkout's commit, looked up again at every build (cheap: one
#                     git call) and rewritten only when it changes, so that only the
#                     version command recompiles after a commit.
# Included after the add_compile_options of the top-level CMakeLists.txt, whose flags it
# reports.
set(CAROUSEL_BUILD_INFO_DIR ${CMAKE_BINARY_DIR}/build_info)

# The text goes into C++ string literals.
function(carousel_c_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# A function, so that its variables stay its own; sets CAROUSEL_MARCH_NATIVE for the caller.
function(carousel_build_info)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" type)
  get_directory_property(options COMPILE_OPTIONS)
  list(JOIN options " " options)
  string(STRIP "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${type}} ${options}" flags)
  string(REGEX REPLACE "  +" " " flags "${flags}")
  # Whatever set it (CAROUSEL_NATIVE or CMAKE_CXX_FLAGS), -march=native decides where the
  # binary runs and which vector code the samplers get. CAROUSEL_MARCH_NATIVE tells the
  # top-level CMakeLists.txt too (installed consumers inherit the flag).
  string(FIND " ${flags} " " -march=native " native_at)
  if(native_at EQUAL -1)
    set(CAROUSEL_MARCH_NATIVE OFF PARENT_SCOPE)
    set(CAROUSEL_NATIVE_FLAG false)
  else()
    set(CAROUSEL_MARCH_NATIVE ON PARENT_SCOPE)
    set(CAROUSEL_NATIVE_FLAG true)
  endif()
  carousel_c_string(CAROUSEL_COMPILER_TEXT
    "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
  carousel_c_string(CAROUSEL_BUILD_TYPE_TEXT "${CMAKE_BUILD_TYPE}")
  carousel_c_string(CAROUSEL_FLAGS_TEXT "${flags}")
  configure_file(${CMAKE_CURRENT_LIST_DIR}/build_config.hpp.in
    ${CAROUSEL_BUILD_INFO_DIR}/build_info/build_config.hpp @ONLY)

  set(git_commit_header ${CAROUSEL_BUILD_INFO_DIR}/build_info/git_commit.hpp)
  set(git_commit_command ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
    -DOUTPUT=${git_commit_header} -P ${CMAKE_CURRENT_LIST_DIR}/GitCommit.cmake)
  # Once now, so that the header exists from the start ...
  execute_process(COMMAND ${git_commit_command})
  # ... and at every build, as a commit changes no file the build knows of.
  add_custom_target(carousel_git_commit COMMAND ${git_commit_command}
    BYPRODUCTS ${git_commit_header} VERBATIM)
endfunction()
carousel_build_info()
