# The libFuzzer target `axbundle_fuzz` (clang, ASan/UBSan; see axcore_fuzz_target in
# cmake/AxcoreHelpers.cmake): the bundle reader and writer over their sources and common/txn's.
get_target_property(_txn_src axcore_txn SOURCES)
get_target_property(_txn_dir axcore_txn SOURCE_DIR)
list(TRANSFORM _txn_src PREPEND ${_txn_dir}/)
axcore_fuzz_target(axbundle_fuzz SPEC
  SOURCES src/bundle_model.cpp src/bundle_codec.cpp src/bundle_txn.cpp src/bundle_dispatch.cpp ${CMAKE_SOURCE_DIR}/common/trace/src/record.cpp ${_txn_src}
          fuzz/bundle_fuzz.cpp
  INCLUDES include ${CMAKE_SOURCE_DIR}/common/txn/include ${CMAKE_SOURCE_DIR}/common/trace/include
           ${CMAKE_SOURCE_DIR}/common/text/include
  VARIABLE AXCORE_BUNDLE_FUZZER)
