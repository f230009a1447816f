# Writes the header naming the commit this build comes from, for `carousel version`:
#   cmake -DSOURCE_DIR=<checkout> -DOUTPUT=<header> -P GitCommit.cmake
# The commit is `git describe --always --dirty` of SOURCE_DIR, or "unknown" when git is
# missing or SOURCE_DIR is not the top of a git checkout (a source tarball unpacked inside
# some other repository must not report that repository's commit). The build runs this at
# every build (target carousel_git_commit), so OUTPUT is rewritten only when the text
# changes: an unchanged checkout recompiles nothing.
cmake_minimum_required(VERSION 3.18)

set(commit "unknown")
find_program(CAROUSEL_GIT git)
if(CAROUSEL_GIT)
  execute_process(COMMAND ${CAROUSEL_GIT} rev-parse --show-toplevel
    WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE top ERROR_QUIET
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  file(REAL_PATH "${SOURCE_DIR}" source_real)
  if(rc EQUAL 0 AND top)
    file(REAL_PATH "${top}" top)
  endif()
  if(rc EQUAL 0 AND top STREQUAL source_real)
    # --no-optional-locks: a build must not take the index lock from a git command the
    # user runs meanwhile (describe --dirty would otherwise refresh and rewrite the index).
    execute_process(COMMAND ${CAROUSEL_GIT} --no-optional-locks describe --always --dirty
      WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE described
      ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND described MATCHES "^[A-Za-z0-9._/+-]+$")
      set(commit "${described}")
    endif()
  endif()
endif()

set(text "// Generated at build time by cmake/GitCommit.cmake. Not installed.
#pragma once

namespace carousel::build {

inline constexpr const char* kGitCommit = \"${commit}\";

}  // namespace carousel::build
")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
