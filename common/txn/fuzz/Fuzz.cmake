# The libFuzzer target `axtxn_fuzz` needs clang with its fuzzer runtime (Debian: clang,
# libclang-rt-14-dev; scripts/setup-deps installs both). It is built only when a configure-time
# check compiles and links a fuzzer with ASan/UBSan. The main build may use GCC, so the target is
# one clang command over the library sources (no GCC objects are mixed in).
option(AXCORE_FUZZ "Build the libFuzzer targets when clang with its fuzzer runtime is present" ON)
find_program(AXCORE_CLANGXX NAMES clang++ clang++-14)
set(AXCORE_TXN_FUZZ OFF)
if(AXCORE_FUZZ AND AXCORE_CLANGXX)
  # Probe once per compiler: a clang installed later is picked up by the next configure.
  if(NOT AXCORE_TXN_FUZZ_PROBED_WITH STREQUAL AXCORE_CLANGXX)
    set(_probe_dir ${CMAKE_BINARY_DIR}/CMakeFiles/axtxn_fuzz_probe)
    file(MAKE_DIRECTORY ${_probe_dir})
    file(WRITE ${_probe_dir}/probe.cpp
         "#include <cstdint>\n#include <cstddef>\nextern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n")
    execute_process(COMMAND ${AXCORE_CLANGXX} -std=c++20 -fsanitize=fuzzer,address,undefined
                            ${_probe_dir}/probe.cpp -o ${_probe_dir}/probe
                    RESULT_VARIABLE _probe_rc OUTPUT_QUIET ERROR_QUIET)
    if(_probe_rc EQUAL 0)
      set(_probe ON)
    else()
      set(_probe OFF)
    endif()
    set(AXCORE_TXN_FUZZ_PROBED_WITH "${AXCORE_CLANGXX}" CACHE INTERNAL "compiler of the libFuzzer probe")
    set(AXCORE_TXN_FUZZ_PROBE_OK ${_probe} CACHE INTERNAL "the libFuzzer probe linked")
  endif()
  if(AXCORE_TXN_FUZZ_PROBE_OK)
    set(AXCORE_TXN_FUZZ ON)
  endif()
endif()
set(AXCORE_TXN_FUZZ ${AXCORE_TXN_FUZZ} CACHE INTERNAL "the TXN fuzzer is built")

if(AXCORE_TXN_FUZZ)
  set(AXCORE_TXN_FUZZER ${CMAKE_CURRENT_BINARY_DIR}/fuzz/axtxn_fuzz CACHE INTERNAL "the TXN fuzzer binary")
  list(TRANSFORM AXCORE_TXN_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/ OUTPUT_VARIABLE _fuzz_sources)
  file(GLOB _fuzz_headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/axcore/txn/*.hpp
       ${CMAKE_CURRENT_SOURCE_DIR}/src/*.hpp)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
  add_custom_command(
    OUTPUT ${AXCORE_TXN_FUZZER}
    COMMAND ${AXCORE_CLANGXX} -std=c++20 -O1 -g -fno-omit-frame-pointer
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
            -Wall -Wextra -Werror
            -I${CMAKE_CURRENT_SOURCE_DIR}/include -I${AXCORE_GEN_DIR}/include
            ${_fuzz_sources} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/txn_fuzz.cpp -o ${AXCORE_TXN_FUZZER}
    DEPENDS ${_fuzz_sources} ${_fuzz_headers} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/txn_fuzz.cpp
            ${AXCORE_GEN_DIR}/include/axcore/spec.hpp
    COMMENT "Building the TXN libFuzzer target with clang (ASan + UBSan)"
    VERBATIM)
  add_custom_target(axtxn_fuzz ALL DEPENDS ${AXCORE_TXN_FUZZER})
  add_dependencies(axtxn_fuzz axcore_spec_gen)
else()
  message(STATUS "axcore: TXN fuzzer not built (needs clang and libclang-rt-14-dev; run scripts/setup-deps)")
endif()
