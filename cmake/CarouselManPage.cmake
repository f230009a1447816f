# The man page carousel.1, made by help2man from `carousel --help` and `carousel --version`
# and the sections of doc/carousel.h2m, so that it says what the binary says. Without
# help2man (launch/install-deps.sh installs it) the build goes on without a man page.
find_program(HELP2MAN_EXECUTABLE help2man)
if(NOT HELP2MAN_EXECUTABLE)
  message(STATUS "help2man not found: no man page (CAROUSEL_MAN_PAGE)")
  return()
endif()

set(CAROUSEL_MAN_PAGE_FILE ${CMAKE_BINARY_DIR}/man/carousel.1)
add_custom_command(OUTPUT ${CAROUSEL_MAN_PAGE_FILE}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
  COMMAND ${HELP2MAN_EXECUTABLE} --no-info --section 1
    --include ${CMAKE_SOURCE_DIR}/doc/carousel.h2m --output ${CAROUSEL_MAN_PAGE_FILE}
    $<TARGET_FILE:carousel>
  DEPENDS carousel ${CMAKE_SOURCE_DIR}/doc/carousel.h2m
  COMMENT "Generating the man page carousel.1 with help2man"
  VERBATIM)
add_custom_target(carousel_man_page ALL DEPENDS ${CAROUSEL_MAN_PAGE_FILE})
install(FILES ${CAROUSEL_MAN_PAGE_FILE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
