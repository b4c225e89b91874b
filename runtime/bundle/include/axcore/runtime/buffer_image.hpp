// A buffer's logical array (ref::AnyArray, as .npy files hold them) and its device image (the
// bytes in DDR under the buffer's DeviceLayout), both ways.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "axcore/ref/npy.hpp"
#include "axcore/runtime/bundle.hpp"

namespace axcore::runtime {

spec::Dtype dtype_of(const ref::AnyArray& a);
std::vector<uint64_t> shape_of(const ref::AnyArray& a);
std::string shape_text(std::span<const uint64_t> shape);

// Empty when `a` matches the buffer's dtype and shape, else e.g. "input 'x': expected
// INT8 (4, 64), got FLOAT32 (4, 64)".
std::string mismatch(const BufferDesc& b, const ref::AnyArray& a);

// The device image (device_bytes(b) long; bytes past the layout's image are 0). Throws
// BundleError with mismatch()'s message when `a` does not fit the buffer.
std::vector<uint8_t> to_device_image(const BufferDesc& b, const ref::AnyArray& a);
// The same image handed to `write` in pieces (offset in the image, bytes), in order, without
// building it: the packed array's bytes, then the zeros up to device_bytes(b).
using ImageSink = std::function<void(uint64_t offset, std::span<const uint8_t> bytes)>;
void write_device_image(const BufferDesc& b, const ref::AnyArray& a, const ImageSink& write);
// The logical array back from a device image of at least layout_image_bytes(b) bytes.
ref::AnyArray from_device_image(const BufferDesc& b, std::span<const uint8_t> image);
// The logical array of a CONSTANT buffer (its blob, C order).
ref::AnyArray constant_array(const Bundle& bundle, const BufferDesc& b);
// write_device_image of constant_array(bundle, b) (an int8 blob packed straight from its bytes).
void write_constant_image(const Bundle& bundle, const BufferDesc& b, const ImageSink& write);
// Logical C-order bytes of an array / an array from them (the blob encoding).
std::vector<uint8_t> array_bytes(const ref::AnyArray& a);
ref::AnyArray array_from_bytes(spec::Dtype d, std::span<const uint64_t> shape, std::span<const uint8_t> bytes);

// Seeded random data for every INPUT buffer of `b`, in table order from one generator, in its
// logical shape and dtype: int8 / int32 uniform over their range, float16 / float32 uniform in
// [-4, 4) (float16 rounded). The same seed gives the same arrays: `axrand --inputs-for` writes
// them, axrun fills an input it is not given with them. BundleError for a dtype it cannot make.
using RandomInputs = std::map<std::string, ref::AnyArray, std::less<>>;
RandomInputs random_inputs(const Bundle& b, uint64_t seed);
// How random_inputs draws a buffer of `dtype`, for messages ("uniform in [-4, 4)").
std::string random_input_range(spec::Dtype dtype);

}  // namespace axcore::runtime
