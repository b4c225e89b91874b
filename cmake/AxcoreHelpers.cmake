# Warnings and sanitizers apply to our code only, through this interface target.
add_library(axcore_warnings INTERFACE)
target_compile_options(axcore_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Wold-style-cast
  -Woverloaded-virtual -Wimplicit-fallthrough -Wformat=2
  $<$<BOOL:${AXCORE_WERROR}>:-Werror>
  # GCC 12 reports -Wrestrict inside libstdc++'s std::string operator+ at -O2/-O3 (GCC bug 105329).
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)

add_library(axcore_sanitize INTERFACE)
if(AXCORE_SANITIZE)
  target_compile_options(axcore_sanitize INTERFACE -fsanitize=${AXCORE_SANITIZE} -fno-omit-frame-pointer
                         -fno-sanitize-recover=all)
  target_link_options(axcore_sanitize INTERFACE -fsanitize=${AXCORE_SANITIZE})
endif()

# axcore_library(NAME SOURCES... [PUBLIC_LIBS ...] [PRIVATE_LIBS ...])
# A static library of one part, with our warnings, and its include/ folder public.
function(axcore_library name)
  cmake_parse_arguments(A "" "" "SOURCES;PUBLIC_LIBS;PRIVATE_LIBS" ${ARGN})
  add_library(${name} STATIC ${A_SOURCES} ${A_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${A_PUBLIC_LIBS} axcore_sanitize
                        PRIVATE ${A_PRIVATE_LIBS} axcore_warnings)
endfunction()

# axcore_executable(NAME SOURCES... [LIBS ...]) — an installed command-line tool.
function(axcore_executable name)
  cmake_parse_arguments(A "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${A_SOURCES} ${A_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${A_LIBS} axcore_warnings axcore_sanitize)
  install(TARGETS ${name} RUNTIME DESTINATION bin)
endfunction()

# axcore_gtest(NAME SOURCES... LIBS ... LABELS ... [TIMEOUT s])
# One GoogleTest executable registered with CTest. Labels: unit, rtl, tlm, e2e, slow.
# Tests are discovered one CTest entry per test case, each carrying the labels.
include(GoogleTest)
function(axcore_gtest name)
  cmake_parse_arguments(A "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT A_LABELS)
    message(FATAL_ERROR "axcore_gtest(${name}): give LABELS (unit, rtl, tlm, e2e, slow)")
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  add_executable(${name} ${A_SOURCES} ${A_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${A_LIBS} GTest::gtest GTest::gmock GTest::gtest_main
                        axcore_warnings axcore_sanitize)
  # gtest_discover_tests (CMake 3.25) passes PROPERTIES through `-D TEST_PROPERTIES=...` and a
  # generated script, which flattens lists: LABELS "tlm;e2e" arrived as `LABELS tlm e2e TIMEOUT 300`
  # (e2e taken as a property name, the timeout lost, a `slow` second label ignored). So the labels
  # and the timeout are applied by a CTest include file that runs after the discovered tests exist.
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 TEST_LIST ${name}_TESTS)
  set(_props "${CMAKE_CURRENT_BINARY_DIR}/${name}_properties.cmake")
  file(WRITE "${_props}"
       "if(${name}_TESTS)\n"
       "  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${A_LABELS}\" TIMEOUT ${A_TIMEOUT})\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${_props}")
endfunction()

# axcore_test_command(NAME COMMAND ... LABELS ... [WORKING_DIRECTORY d]) — a non-gtest CTest entry.
function(axcore_test_command name)
  cmake_parse_arguments(A "WILL_FAIL" "WORKING_DIRECTORY;TIMEOUT" "COMMAND;LABELS;PASS_REGULAR_EXPRESSION" ${ARGN})
  if(NOT A_WORKING_DIRECTORY)
    set(A_WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  add_test(NAME ${name} COMMAND ${A_COMMAND} WORKING_DIRECTORY ${A_WORKING_DIRECTORY})
  set_tests_properties(${name} PROPERTIES LABELS "${A_LABELS}")
  if(A_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${A_TIMEOUT})
  endif()
  if(A_WILL_FAIL)
    set_tests_properties(${name} PROPERTIES WILL_FAIL TRUE)
  endif()
  if(A_PASS_REGULAR_EXPRESSION)
    set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${A_PASS_REGULAR_EXPRESSION}")
  endif()
endfunction()
