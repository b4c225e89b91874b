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

# axcore_executable(NAME SOURCES... [LIBS ...]) — a command-line tool; the tools (ax*) are
# installed into bin/, benchmarks (NAME_bench: they name build-tree folders) and test drivers not.
function(axcore_executable name)
  cmake_parse_arguments(A "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${A_SOURCES} ${A_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${A_LIBS} axcore_warnings axcore_sanitize)
  if(name MATCHES "^ax" AND NOT name MATCHES "_bench$")
    install(TARGETS ${name} RUNTIME DESTINATION bin)
  endif()
  axcore_link_into_bin(${name})
endfunction()

# <build>/bin/: a symlink to every tool (executables named ax*, wherever their folder builds them),
# and <build>/env.sh putting it first on PATH, so the docs' bare `axrun`, `axc`, ... work after
# `. build/release/env.sh`.
function(axcore_link_into_bin name)
  if(NOT name MATCHES "^ax")
    return()
  endif()
  add_custom_command(TARGET ${name} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/bin
    COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE:${name}> ${CMAKE_BINARY_DIR}/bin/${name}
    VERBATIM)
endfunction()
file(WRITE ${CMAKE_BINARY_DIR}/env.sh
     "# . ${CMAKE_BINARY_DIR}/env.sh — the axcore tools of this build first on PATH (bin/ holds them all)\n"
     "export PATH=\"${CMAKE_BINARY_DIR}/bin:$PATH\"\n")

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

# libFuzzer targets need clang with its fuzzer runtime (Debian: clang, libclang-rt-14-dev;
# scripts/setup-deps installs both; AxcoreDeps finds AXCORE_CLANGXX). A configure-time probe
# compiles and links an empty fuzzer with ASan/UBSan once per compiler; AXCORE_FUZZ_OK says
# whether fuzz targets are built at all.
option(AXCORE_FUZZ "Build the libFuzzer targets when clang with its fuzzer runtime is present" ON)
set(AXCORE_FUZZ_OK OFF)
if(AXCORE_FUZZ AND AXCORE_CLANGXX)
  if(NOT AXCORE_FUZZ_PROBED_WITH STREQUAL AXCORE_CLANGXX)  # a clang installed later is re-probed
    set(_probe_dir ${CMAKE_BINARY_DIR}/CMakeFiles/axcore_fuzz_probe)
    file(MAKE_DIRECTORY ${_probe_dir})
    file(WRITE ${_probe_dir}/probe.cpp
         "#include <cstdint>\n#include <cstddef>\nextern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n")
    execute_process(COMMAND ${AXCORE_CLANGXX} -std=c++20 -fsanitize=fuzzer,address,undefined
                            ${_probe_dir}/probe.cpp -o ${_probe_dir}/probe
                    RESULT_VARIABLE _probe_rc OUTPUT_QUIET ERROR_QUIET)
    set(_probe_ok OFF)
    if(_probe_rc EQUAL 0)
      set(_probe_ok ON)
    endif()
    set(AXCORE_FUZZ_PROBED_WITH "${AXCORE_CLANGXX}" CACHE INTERNAL "compiler of the libFuzzer probe")
    set(AXCORE_FUZZ_PROBE_OK ${_probe_ok} CACHE INTERNAL "the libFuzzer probe linked")
  endif()
  set(AXCORE_FUZZ_OK ${AXCORE_FUZZ_PROBE_OK})
endif()
set(AXCORE_FUZZ_OK ${AXCORE_FUZZ_OK} CACHE INTERNAL "clang's libFuzzer + ASan/UBSan toolchain works")
if(NOT AXCORE_FUZZ_OK)
  message(STATUS "axcore: fuzz targets not built (AXCORE_FUZZ=${AXCORE_FUZZ}; they need clang and "
                 "libclang-rt-14-dev: run scripts/setup-deps)")
endif()

# axcore_fuzz_target(NAME SOURCES ... [INCLUDES dir...] [SPEC] [VARIABLE var])
# A libFuzzer executable <build>/<this dir>/fuzz/NAME built by one clang command over SOURCES
# (paths relative to this folder or absolute; the fuzz body defines LLVMFuzzerTestOneInput) with
# -fsanitize=fuzzer,address,undefined. The main build may use GCC, so no GCC objects are mixed
# in: list every library source the body needs. INCLUDES are -I directories; every .hpp under
# them and beside the sources is a dependency. SPEC adds the generated spec header. VARIABLE
# (a cache variable) receives the binary's path, or "" when the toolchain is missing and
# nothing is built.
function(axcore_fuzz_target name)
  cmake_parse_arguments(A "SPEC" "VARIABLE" "SOURCES;INCLUDES" ${ARGN})
  if(A_UNPARSED_ARGUMENTS OR NOT A_SOURCES)
    message(FATAL_ERROR "axcore_fuzz_target(${name}): give SOURCES (unknown: ${A_UNPARSED_ARGUMENTS})")
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/fuzz/${name})
  if(NOT AXCORE_FUZZ_OK)
    set(out "")
  endif()
  if(A_VARIABLE)
    set(${A_VARIABLE} "${out}" CACHE INTERNAL "the ${name} libFuzzer binary")
  endif()
  if(NOT AXCORE_FUZZ_OK)
    return()
  endif()
  list(TRANSFORM A_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/ REGEX "^[^/]")
  list(TRANSFORM A_INCLUDES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/ REGEX "^[^/]")
  set(deps ${A_SOURCES})
  set(globs "")
  foreach(dir ${A_INCLUDES})
    list(APPEND globs ${dir}/*.hpp)
  endforeach()
  foreach(src ${A_SOURCES})
    get_filename_component(dir ${src} DIRECTORY)
    list(APPEND globs ${dir}/*.hpp)
  endforeach()
  list(REMOVE_DUPLICATES globs)
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS ${globs})
  list(APPEND deps ${headers})
  if(A_SPEC)
    list(APPEND A_INCLUDES ${AXCORE_GEN_DIR}/include)
    list(APPEND deps ${AXCORE_GEN_DIR}/include/axcore/spec.hpp)
  endif()
  list(TRANSFORM A_INCLUDES PREPEND -I OUTPUT_VARIABLE include_flags)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${AXCORE_CLANGXX} -std=c++20 -O1 -g -fno-omit-frame-pointer
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wall -Wextra -Werror
            ${include_flags} ${A_SOURCES} -o ${out}
    DEPENDS ${deps}
    COMMENT "Building the libFuzzer target ${name} with clang (ASan + UBSan)"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${out})
  if(A_SPEC)
    add_dependencies(${name} axcore_spec_gen)
  endif()
endfunction()

# axcore_fuzz_tests(PREFIX FUZZER binary CORPUS dir MAX_LEN n)
# The tests of one libFuzzer binary: PREFIX_smoke (20 000 runs, seed 1, default tier, label unit),
# PREFIX_slow (60 s, label slow), both behind PREFIX_built (the binary exists). New inputs go to
# build-tree work directories, never into the checked-in CORPUS. Nothing when FUZZER is empty.
function(axcore_fuzz_tests prefix)
  cmake_parse_arguments(A "" "FUZZER;CORPUS;MAX_LEN" "" ${ARGN})
  if(A_UNPARSED_ARGUMENTS OR NOT A_CORPUS OR NOT A_MAX_LEN)
    message(FATAL_ERROR "axcore_fuzz_tests(${prefix}): give FUZZER, CORPUS and MAX_LEN (unknown: ${A_UNPARSED_ARGUMENTS})")
  endif()
  if(NOT A_FUZZER)
    return()
  endif()
  set(work ${CMAKE_CURRENT_BINARY_DIR}/${prefix}_work)
  file(MAKE_DIRECTORY ${work} ${work}_slow)
  axcore_test_command(${prefix}_smoke
    COMMAND ${A_FUZZER} -runs=20000 -seed=1 -max_len=${A_MAX_LEN} ${work} ${A_CORPUS} LABELS unit TIMEOUT 120)
  axcore_test_command(${prefix}_slow
    COMMAND ${A_FUZZER} -max_total_time=60 -max_len=${A_MAX_LEN} ${work}_slow ${A_CORPUS} LABELS slow TIMEOUT 300)
  add_test(NAME ${prefix}_built COMMAND ${CMAKE_COMMAND} -E sha256sum ${A_FUZZER})
  set_tests_properties(${prefix}_built PROPERTIES FIXTURES_SETUP ${prefix}_fuzzer LABELS "unit;slow")
  set_tests_properties(${prefix}_smoke ${prefix}_slow PROPERTIES FIXTURES_REQUIRED ${prefix}_fuzzer)
endfunction()
