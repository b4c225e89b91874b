# The libFuzzer target `axbundle_fuzz` (clang + its fuzzer runtime, ASan/UBSan), built only when
# common/txn's configure probe found a working clang fuzzer toolchain (AXCORE_TXN_FUZZ). One clang
# command over the sources it needs, like common/txn/fuzz.
if(AXCORE_TXN_FUZZ)
  set(AXCORE_BUNDLE_FUZZER ${CMAKE_CURRENT_BINARY_DIR}/fuzz/axbundle_fuzz CACHE INTERNAL "the bundle fuzzer binary")
  get_target_property(_txn_src axcore_txn SOURCES)
  get_target_property(_txn_dir axcore_txn SOURCE_DIR)
  list(TRANSFORM _txn_src PREPEND ${_txn_dir}/)
  set(_srcs ${CMAKE_CURRENT_SOURCE_DIR}/src/bundle_model.cpp ${CMAKE_CURRENT_SOURCE_DIR}/src/bundle_codec.cpp
      ${CMAKE_SOURCE_DIR}/common/trace/src/record.cpp ${_txn_src})
  file(GLOB _hdrs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/axcore/runtime/*.hpp ${CMAKE_CURRENT_SOURCE_DIR}/src/*.hpp)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
  add_custom_command(
    OUTPUT ${AXCORE_BUNDLE_FUZZER}
    COMMAND ${AXCORE_CLANGXX} -std=c++20 -O1 -g -fno-omit-frame-pointer
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wall -Wextra -Werror
            -I${CMAKE_CURRENT_SOURCE_DIR}/include -I${CMAKE_SOURCE_DIR}/common/txn/include
            -I${CMAKE_SOURCE_DIR}/common/trace/include -I${AXCORE_GEN_DIR}/include
            ${_srcs} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/bundle_fuzz.cpp -o ${AXCORE_BUNDLE_FUZZER}
    DEPENDS ${_srcs} ${_hdrs} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/bundle_fuzz.cpp ${AXCORE_GEN_DIR}/include/axcore/spec.hpp
    COMMENT "Building the bundle libFuzzer target with clang (ASan + UBSan)"
    VERBATIM)
  add_custom_target(axbundle_fuzz ALL DEPENDS ${AXCORE_BUNDLE_FUZZER})
  add_dependencies(axbundle_fuzz axcore_spec_gen)
endif()
