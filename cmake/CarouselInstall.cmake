# What `cmake --install` puts under the prefix (GNU directory layout):
#   bin/carousel
#   include/carousel/...                 every layer's headers, and the generated version.hpp
#   lib/libcarousel_<layer>.a            one static library per layer (CMakeLists.txt)
#   lib/cmake/Carousel/                  the package: find_package(Carousel), then
#                                        Carousel::carousel (all layers) or Carousel::<layer>
#   share/man/man1/carousel.1            when help2man made it (cmake/CarouselManPage.cmake)
#   share/bash-completion/completions/carousel
# The layer views are for building only: installed, the headers of all layers sit in one
# include/carousel/, as a consumer includes them ("carousel/comm/ordered_sum.hpp").
include(CMakePackageConfigHelpers)

install(TARGETS carousel RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

list(TRANSFORM CAROUSEL_LAYERS PREPEND carousel_ OUTPUT_VARIABLE layer_targets)
install(TARGETS ${layer_targets} carousel_core EXPORT CarouselTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/carousel DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
install(FILES ${CMAKE_BINARY_DIR}/generated/carousel/version.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/carousel)

set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Carousel)
install(EXPORT CarouselTargets NAMESPACE Carousel:: DESTINATION ${package_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/CarouselConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/CarouselConfig.cmake INSTALL_DESTINATION ${package_dir})
# Before 1.0 a minor release may change the interfaces, so only the same minor version fits.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/CarouselConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/CarouselConfig.cmake
  ${CMAKE_BINARY_DIR}/package/CarouselConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/CarouselHeaderOnlyDeps.cmake
  DESTINATION ${package_dir})

install(FILES ${CMAKE_SOURCE_DIR}/launch/carousel-completion.bash
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME carousel)
