# Random123 and CLI11 are header-only, and Debian's Random123 ships no CMake package: their
# headers are found here and presented as imported targets, Random123::Random123 and
# CLI11::CLI11 (the name CLI11's own package uses), so that the layer libraries can name
# them and the exported targets carry no path of the building machine. Used twice: by the
# build (CMakeLists.txt) and, installed next to it, by CarouselConfig.cmake in a consumer.
# Sets CAROUSEL_HEADER_DEPS_MISSING to the headers not found.
set(CAROUSEL_HEADER_DEPS_MISSING "")

if(NOT TARGET Random123::Random123)
  find_path(RANDOM123_INCLUDE_DIR Random123/philox.h)
  if(RANDOM123_INCLUDE_DIR)
    add_library(Random123::Random123 INTERFACE IMPORTED)
    set_target_properties(Random123::Random123 PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${RANDOM123_INCLUDE_DIR}")
  else()
    list(APPEND CAROUSEL_HEADER_DEPS_MISSING "Random123/philox.h (librandom123-dev)")
  endif()
endif()

if(NOT TARGET CLI11::CLI11)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp)
  if(CLI11_INCLUDE_DIR)
    add_library(CLI11::CLI11 INTERFACE IMPORTED)
    set_target_properties(CLI11::CLI11 PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${CLI11_INCLUDE_DIR}")
  else()
    list(APPEND CAROUSEL_HEADER_DEPS_MISSING "CLI/CLI.hpp (libcli11-dev)")
  endif()
endif()
