#include "axcore/ref/op/elementwise.hpp"

namespace axcore::ref {

NDArray<num::Float18> binary_f18(BinaryOp op, const NDArray<num::Float18>& a, const NDArray<num::Float18>& b) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  NDArray<num::Float18> out(shape);
  if (out.size() == 0) return out;
  std::vector<std::size_t> idx(shape.size(), 0);
  std::size_t i = 0;
  do {
    const num::Float18 x = a.data()[broadcast_offset(a.shape(), idx)];
    const num::Float18 y = b.data()[broadcast_offset(b.shape(), idx)];
    num::Float18 r;
    switch (op) {
      case BinaryOp::Add: r = num::add(x, y); break;
      case BinaryOp::Sub: r = num::sub(x, y); break;
      case BinaryOp::Mul: r = num::mul(x, y); break;
      case BinaryOp::Min: r = num::min(x, y); break;
      case BinaryOp::Max: r = num::max(x, y); break;
      case BinaryOp::Prelu: r = num::prelu(x, y); break;
    }
    out.data()[i++] = r;
  } while (next_index(idx, shape));
  return out;
}

}  // namespace axcore::ref
