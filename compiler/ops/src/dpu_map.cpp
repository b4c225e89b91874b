#include "dpu_map.hpp"

namespace axcore::compiler::ops::detail {

Tensor preamble_constants(const std::string& stem, const std::vector<double>& scalars) {
  std::vector<double> v;
  for (double s : scalars) v.insert(v.end(), 64, s);
  return make_constant(stem, {static_cast<int64_t>(scalars.size())}, "float32x64", std::move(v));
}

std::vector<A::Value> broadcast_index(const Tensor& b, const std::vector<A::Value>& i) {
  const auto& s = b.shape();
  std::vector<A::Value> r;
  const std::size_t off = i.size() - s.size();
  for (std::size_t k = 0; k < s.size(); ++k) r.push_back(s[k] == 1 ? A::Value(0) : i[off + k]);
  return r;
}

void dpu_map(const Tensor& in, const Tensor& out, const Tensor& side, const Tensor& consts, const MapFn& f) {
  const auto shape = in.shape();
  A::Datapath([&] {
    auto s0 = A::decl_stream(in.dtype());
    auto s1 = A::decl_stream(side ? side.dtype() : "float32x64");
    auto so = A::decl_stream(out.dtype());
    A::IFD(0, [&] { A::grid_nest(shape, [&](const std::vector<A::Value>& i) { s0.push(in.at(i)); }); });
    if (consts) {
      // The preamble's constants first, then (in order on the same feeder) nothing else: a side
      // tensor and preamble constants never share one datapath.
      A::IFD(1, [&] {
        for (auto j : A::serial(consts.shape()[0])) s1.push(consts(j));
      });
    } else if (side) {
      A::IFD(1, [&] {
        A::grid_nest(shape, [&](const std::vector<A::Value>& i) { s1.push(side.at(broadcast_index(side, i))); });
      });
    }
    A::DPU([&] {
      // (Reg's assignment stores into the register, so the handle is initialised, not assigned.)
      const A::Reg k = consts ? A::array("float18x64", consts.shape()[0], "k") : A::Reg();
      if (consts) {
        A::init([&] {
          for (auto j : A::serial(consts.shape()[0])) k[j] = A::cast(s1.pop(), "float18x64");
        });
      }
      A::grid_nest(shape, [&](const std::vector<A::Value>&) {
        const A::Value x = A::cast(s0.pop(), "float18x64");
        const A::Value y = side ? A::cast(s1.pop(), "float18x64") : A::Value();
        so.push(A::cast(f(x, y, k), out.dtype()));
      });
    });
    A::ODR([&] { A::grid_nest(shape, [&](const std::vector<A::Value>& i) { out.at(i) = so.pop(); }); });
  });
}

}  // namespace axcore::compiler::ops::detail
