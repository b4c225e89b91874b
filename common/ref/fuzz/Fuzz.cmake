# The libFuzzer target `axnpy_fuzz` (clang, ASan/UBSan; see axcore_fuzz_target in
# cmake/AxcoreHelpers.cmake): parse_npy and to_npy over their sources alone.
axcore_fuzz_target(axnpy_fuzz SOURCES src/npy.cpp src/ndarray.cpp fuzz/npy_fuzz.cpp
                   INCLUDES include ${CMAKE_SOURCE_DIR}/common/num/include VARIABLE AXCORE_NPY_FUZZER)
