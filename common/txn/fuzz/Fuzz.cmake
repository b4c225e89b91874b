# The libFuzzer target `axtxn_fuzz` (clang, ASan/UBSan; see axcore_fuzz_target in
# cmake/AxcoreHelpers.cmake): decode + trace + explain + compare over the library's sources.
axcore_fuzz_target(axtxn_fuzz SPEC SOURCES ${AXCORE_TXN_SOURCES} fuzz/txn_fuzz.cpp
                   INCLUDES include ${CMAKE_SOURCE_DIR}/common/text/include
                   VARIABLE AXCORE_TXN_FUZZER)
# Kept for the tests that guard on it: the fuzz toolchain works, axtxn_fuzz (and the others) are built.
set(AXCORE_TXN_FUZZ ${AXCORE_FUZZ_OK} CACHE INTERNAL "the TXN fuzzer is built")
