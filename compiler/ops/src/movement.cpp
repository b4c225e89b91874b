// Data movement: IFD -> ODR datapaths with every compute unit bypassed (guide §6.4), so they are
// exact for every dtype. The PWORD-packed last axis moves whole: permutes keep it last, slices
// and concatenations along it go in blocks of 64.
#include <map>

#include "util.hpp"

namespace axcore::compiler::ops::detail {
namespace {

using Idx = std::vector<A::Value>;
using IndexFn = std::function<Idx(const Idx&)>;

// One datapath over `extents` (sunk): out[dst(i)] = in[src(i)].
void move(const Tensor& in, const Tensor& out, const std::vector<int64_t>& extents, const IndexFn& src,
          const IndexFn& dst) {
  A::grid_nest(extents, [&](const Idx& i) {
    A::Datapath([&] {
      auto s = A::decl_stream(in.dtype());
      A::IFD(0, [&] { s.push(in.at(src(i))); });
      A::ODR([&] { out.at(dst(i)) = s.pop(); });
    });
  });
}

Idx same(const Idx& i) { return i; }

int64_t norm_dim(const Call& c, const std::string& arg, int64_t d, std::size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (d < -r || d >= r) c.refuse(arg, std::to_string(d) + " is out of range for rank " + std::to_string(rank));
  return d < 0 ? d + r : d;
}

std::vector<double> as_doubles(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

const std::vector<std::string> kAnyDtype = {"int8x64", "float16x64", "float32x64", "int32x64"};

// ---- copy ----------------------------------------------------------------------------------------
OpDef copy_op() {
  OpDef op;
  op.name = "atomic.copy";
  op.level = Level::Atomic;
  op.doc = "out = x, one IFD -> ODR datapath (exact for every dtype)";
  op.args = {{"input", ArgKind::Tensor, true, {}, "any PWORD tensor"}};
  op.validate = [](const Call& c) { require_dtype(c, "input", kAnyDtype); };
  op.infer_output = [](const Call& c) { return BufferInfo{c.tensor("input").shape(), c.tensor("input").dtype()}; };
  op.implementation = [](const Call& c, const Tensor& out) {
    const Tensor x = c.tensor("input");
    move(x, out, x.shape(), same, same);
  };
  op.emulate = [](const Call& c, const Tensor& out) {
    return std::vector<Node>{node("copy", {c.tensor("input").name()}, {out.name()})};
  };
  return op;
}

// ---- full ----------------------------------------------------------------------------------------
OpDef full_op() {
  OpDef op;
  op.name = "atomic.full";
  op.level = Level::Atomic;
  op.doc = "a tensor of one value: the IFD streams its all-pad Broadcast (no memory read)";
  op.args = {{"shape", ArgKind::Ints, true, {}, "logical shape; the last extent a multiple of 64"},
             {"value", ArgKind::Float, true, {}, "the fill value"},
             {"dtype", ArgKind::String, false, std::string("float32"), "int8, float16 or float32"}};
  op.validate = [](const Call& c) {
    const auto s = c.ints("shape");
    if (s.empty() || s.back() % 64 != 0)
      c.refuse("shape", "the last (PWORD-packed) extent must be a multiple of 64, got " + shape_str(s));
    const std::string d = c.s("dtype");
    if (d != "int8" && d != "float16" && d != "float32")
      c.refuse("dtype", "'" + d + "' is not int8, float16 or float32");
    if (d == "int8" && (c.f("value") != static_cast<double>(static_cast<int64_t>(c.f("value"))) ||
                        c.f("value") < -128 || c.f("value") > 127))
      c.refuse("value", "an int8 fill must be a whole number in -128..127");
  };
  op.infer_output = [](const Call& c) {
    auto s = c.ints("shape");
    s.back() /= 64;
    return BufferInfo{s, c.s("dtype") + "x64"};
  };
  op.implementation = [](const Call& c, const Tensor& out) {
    const double v = c.f("value");
    const A::Value pad = c.s("dtype") == "int8" ? A::int8(static_cast<int64_t>(v)) : A::float32(v);
    A::grid_nest(out.shape(), [&](const Idx& i) {
      A::Datapath([&] {
        auto s = A::decl_stream(out.dtype());
        A::IFD(0, [&] { s.push(A::Broadcast(pad, 64)); });
        A::ODR([&] { out.at(i) = s.pop(); });
      });
    });
  };
  op.emulate = [](const Call& c, const Tensor& out) {
    // The reference is the same values held as a constant, copied.
    const Tensor k =
        make_constant(out.name() + "_ref", out.shape(), out.dtype(),
                      std::vector<double>(static_cast<std::size_t>(out.node()->elements() * 64), c.f("value")));
    return std::vector<Node>{node("copy", {k.name()}, {out.name()})};
  };
  return op;
}

// ---- permute / transpose ------------------------------------------------------------------------
// `dims` is over the logical axes (the packed last axis is logical axis rank-1). A permute that
// keeps it last moves whole PWORDs (IFD -> ODR). One that moves it goes through the DWPU ODR's
// lane transpose (A.vtrsp, spec walk field transpose): per block of the new packed axis p and
// of the old one, the IFD streams the 64 elements p = 64 cb + t and the ODR stores them
// transposed at old-last index 64 wb + t — an int8 64 x 64 block of lanes per 64 + 64 cycles.
void permute_impl(const Tensor& x, const Tensor& out, const std::vector<int64_t>& dims) {
  const std::size_t r = dims.size();
  if (dims.back() == static_cast<int64_t>(r) - 1) {
    move(
        x, out, out.shape(),
        [dims](const Idx& i) {
          Idx s(i.size());
          for (std::size_t k = 0; k < dims.size(); ++k) s[static_cast<std::size_t>(dims[k])] = i[k];
          return s;
        },
        same);
    return;
  }
  const auto p = static_cast<std::size_t>(dims.back());  // the input axis that becomes packed
  std::size_t q = 0;                                     // where the old packed axis goes
  while (dims[q] != static_cast<int64_t>(r) - 1) ++q;
  // loops: the output's packed indices with axis q counting blocks (x's last extent), then t < 64
  std::vector<int64_t> extents = out.shape();
  extents[q] = x.shape().back();
  extents.push_back(64);
  A::grid_nest(extents, [&](const Idx& i) {
    const A::Value t = i[r];
    Idx o(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(r));
    o[q] = i[q] * 64 + t;
    Idx s(r);
    for (std::size_t k = 0; k + 1 < r; ++k) s[static_cast<std::size_t>(dims[k])] = i[k];
    s[p] = i[r - 1] * 64 + t;
    s[r - 1] = i[q];
    A::Datapath(A::DP_DWPU, [&] {
      auto st = A::decl_stream(x.dtype());
      A::IFD(0, [&] { st.push(x.at(s)); });
      A::ODR([&] { out.at(o) = A::vtrsp(st.pop()); });
    });
  });
}

// Beyond L1 (the guide's §13 NCHW image, 3.6 MB): a permute whose input is in DDR and which does
// not fit L1 with its result runs a band of one output axis at a time — the band's input copied
// into an L1 slot (a strided SysDMA), permuted there, the result copied out to DDR — through two
// slot pairs (ping/pong), the result a DDR buffer. The band axis is the outermost output axis of
// extent > 1 that stays a plain axis (neither packed before nor after).
uint64_t bytes_of(const Tensor& t) { return static_cast<uint64_t>(t.node()->elements()) * t.node()->dtype.bytes(); }
bool beyond_l1(const Tensor& x, const Tensor& out) {
  const BufferNode& r = *x.node()->root();
  const bool ddr = r.role == BufferRole::Input || r.role == BufferRole::Constant || r.scope == Scope::DDR ||
                   r.scope == Scope::DDR_WEAK;
  return ddr && bytes_of(x) + bytes_of(out) + 64 * 1024 > target().l1_bytes;
}
void to_ddr(const Tensor& out) {
  BufferNode* root = out.node().get();
  while (root->alias_of) root = root->alias_of.get();
  root->scope = Scope::DDR;
}

bool permute_banded(const Tensor& x, const Tensor& out, const std::vector<int64_t>& dims) {
  const std::size_t r = dims.size();
  std::size_t k = 0;  // the output axis of the bands
  while (k + 1 < r && (out.shape()[k] == 1 || dims[k] == static_cast<int64_t>(r) - 1)) ++k;
  if (k + 1 >= r) return false;
  const auto ia = static_cast<std::size_t>(dims[k]);  // the same axis in the input
  const int64_t extent = out.shape()[k];
  const uint64_t per = (bytes_of(x) + bytes_of(out)) / static_cast<uint64_t>(extent);
  const uint64_t room = target().l1_bytes - 64 * 1024;
  // Two slot pairs (band b + 1's copy in beside band b's transpose); one when a band of one only
  // fits once (the bands then run one after the other).
  const int sets = room / (2 * per) >= 1 ? 2 : 1;
  const int64_t band = std::min<int64_t>(extent, static_cast<int64_t>(room / (sets * per)));
  if (band < 1) return false;
  to_ddr(out);
  auto shape_of = [&](std::vector<int64_t> s, std::size_t axis, int64_t n) {
    s[axis] = n;
    return s;
  };
  std::map<std::pair<int64_t, int64_t>, std::pair<Tensor, Tensor>> slots;  // (band size, set) -> in, out
  for (int64_t b0 = 0, b = 0; b0 < extent; b0 += band, ++b) {
    const int64_t n = std::min(band, extent - b0);
    auto& [xs, ys] = slots[{n, b % sets}];
    if (!xs) {
      const std::string tag = out.name() + "_band" + std::to_string(n) + "_" + std::to_string(b % sets);
      xs = A::alloc_buffer(shape_of(x.shape(), ia, n), x.dtype(), A::L1, tag + "_in");
      ys = A::alloc_buffer(shape_of(out.shape(), k, n), out.dtype(), A::L1, tag + "_out");
      xs.node()->loc = ys.node()->loc = call_loc();
    }
    A::SysDMA([&] {
      A::grid_nest(xs.shape(), [&](const Idx& i) {
        Idx s = i;
        s[ia] = i[ia] + b0;
        xs.at(i) = x.at(s);
      });
    });
    permute_impl(xs, ys, dims);
    A::SysDMA([&] {
      A::grid_nest(ys.shape(), [&](const Idx& i) {
        Idx o = i;
        o[k] = i[k] + b0;
        out.at(o) = ys.at(i);
      });
    });
  }
  return true;
}

// The output's packed shape: the logical shape permuted, its last extent in PWORDs.
std::vector<int64_t> permuted(const Tensor& x, const std::vector<int64_t>& dims) {
  const std::vector<int64_t> l = logical(x);
  std::vector<int64_t> r;
  for (int64_t d : dims) r.push_back(l[static_cast<std::size_t>(d)]);
  r.back() /= 64;
  return r;
}

// Normalized dims; refuses a non-permutation and a new packed axis whose extent is not a
// multiple of 64 (the lanes of a PWORD).
std::vector<int64_t> checked_dims(const Call& c, std::vector<int64_t> d, const std::string& arg) {
  const Tensor x = c.tensor("input");
  const std::size_t r = x.shape().size();
  std::vector<bool> seen(r, false);
  for (auto& v : d) {
    v = norm_dim(c, arg, v, r);
    if (seen[static_cast<std::size_t>(v)]) c.refuse(arg, "is not a permutation (" + std::to_string(v) + " twice)");
    seen[static_cast<std::size_t>(v)] = true;
  }
  const int64_t ext = logical(x)[static_cast<std::size_t>(d.back())];
  if (d.back() != static_cast<int64_t>(r) - 1 && ext % 64 != 0)
    c.refuse(arg,
             "makes axis " + std::to_string(d.back()) + " (extent " + std::to_string(ext) +
                 ") the PWORD-packed last axis: its extent must be a multiple of 64",
             "pad that axis to a multiple of 64 first");
  return d;
}

Node permute_node(const Call& c, const Tensor& out, const std::vector<int64_t>& dims) {
  Node n = node("permute", {c.tensor("input").name()}, {out.name()});
  n.num_attrs["dims"] = as_doubles(dims);
  return n;
}

// atomic.permute and atomic.transpose: the same op but for how `dims` comes from the arguments.
OpDef permute_family(const std::string& name, const std::string& doc, std::vector<ArgSpec> args,
                     const std::function<std::vector<int64_t>(const Call&)>& dims_of, Level level = Level::Atomic) {
  OpDef op;
  op.name = name;
  op.level = level;
  op.doc = doc;
  op.args = std::move(args);
  op.validate = [dims_of](const Call& c) {
    require_dtype(c, "input", kAnyDtype);
    dims_of(c);
  };
  op.infer_output = [dims_of](const Call& c) {
    return BufferInfo{permuted(c.tensor("input"), dims_of(c)), c.tensor("input").dtype()};
  };
  op.implementation = [dims_of](const Call& c, const Tensor& out) {
    const Tensor x = c.tensor("input");
    if (!beyond_l1(x, out) || !permute_banded(x, out, dims_of(c))) permute_impl(x, out, dims_of(c));
  };
  op.emulate = [dims_of](const Call& c, const Tensor& out) {
    return std::vector<Node>{permute_node(c, out, dims_of(c))};
  };
  return op;
}

OpDef permute_op() {
  return permute_family(
      "atomic.permute",
      "out.shape[k] = x.shape[dims[k]] (logical axes); moving the packed last axis goes through the DWPU ODR's "
      "lane transpose (A.vtrsp)",
      {{"input", ArgKind::Tensor, true, {}, "any PWORD tensor"},
       {"dims", ArgKind::Ints, true, {}, "a permutation of 0..rank-1; a new last axis needs an extent % 64 == 0"}},
      [](const Call& c) { return checked_dims(c, c.ints("dims", c.tensor("input").shape().size()), "dims"); });
}

// The guide's axol.core.transpose(x, dims=...): permutes any axes (§8.4), as atomic.permute.
OpDef core_transpose_op() {
  return permute_family(
      "core.transpose", "permutes any axes (the guide's axol.core.transpose(x, dims=...)); as atomic.permute",
      {{"input", ArgKind::Tensor, true, {}, "any PWORD tensor"},
       {"dims", ArgKind::Ints, true, {}, "a permutation of 0..rank-1; a new last axis needs an extent % 64 == 0"}},
      [](const Call& c) { return checked_dims(c, c.ints("dims", c.tensor("input").shape().size()), "dims"); },
      Level::Core);
}

// The guide's axol.atomic.vector_transpose: the last two axes swapped, in one datapath (A.vtrsp).
OpDef vector_transpose_op() {
  return permute_family(
      "atomic.vector_transpose", "swaps the last two axes through the DWPU ODR's lane transpose (A.vtrsp)",
      {{"input", ArgKind::Tensor, true, {}, "a PWORD tensor of rank >= 2, both last extents multiples of 64"}},
      [](const Call& c) {
        const std::size_t r = c.tensor("input").shape().size();
        if (r < 2) c.refuse("input", "has rank " + std::to_string(r) + ": vector_transpose swaps the last two axes");
        std::vector<int64_t> d(r);
        for (std::size_t k = 0; k < r; ++k) d[k] = static_cast<int64_t>(k);
        std::swap(d[r - 1], d[r - 2]);
        return checked_dims(c, d, "input");
      });
}

OpDef transpose_op() {
  return permute_family(
      "atomic.transpose",
      "swaps two axes; swapping the packed last axis goes through the DWPU ODR's lane transpose (A.vtrsp)",
      {{"input", ArgKind::Tensor, true, {}, "any PWORD tensor"},
       {"dim0", ArgKind::Int, true, {}, "an axis"},
       {"dim1", ArgKind::Int, true, {}, "an axis"}},
      [](const Call& c) {
        const std::size_t r = c.tensor("input").shape().size();
        std::vector<int64_t> d(r);
        for (std::size_t k = 0; k < r; ++k) d[k] = static_cast<int64_t>(k);
        const int64_t a = norm_dim(c, "dim0", c.i("dim0"), r), b = norm_dim(c, "dim1", c.i("dim1"), r);
        std::swap(d[static_cast<std::size_t>(a)], d[static_cast<std::size_t>(b)]);
        return checked_dims(c, d, a == static_cast<int64_t>(r) - 1 ? "dim1" : "dim0");
      });
}

// ---- slice ----------------------------------------------------------------------------------------
struct SliceArgs {
  int64_t dim, start, end, step;
  bool last;
};
SliceArgs slice_args(const Call& c) {
  const Tensor x = c.tensor("input");
  const auto shape = logical(x);
  SliceArgs a{};
  a.dim = norm_dim(c, "dim", c.i("dim"), shape.size());
  const int64_t n = shape[static_cast<std::size_t>(a.dim)];
  a.start = c.i("start") < 0 ? c.i("start") + n : c.i("start");
  a.end = c.has("end") ? (c.i("end") < 0 ? c.i("end") + n : std::min(c.i("end"), n)) : n;
  a.step = c.i("step");
  a.last = a.dim == static_cast<int64_t>(shape.size()) - 1;
  return a;
}

OpDef slice_op() {
  OpDef op;
  op.name = "atomic.slice_tensor";
  op.level = Level::Atomic;
  op.doc = "elements start, start+step, ... < end along dim (along the packed axis: whole PWORDs)";
  op.args = {{"input", ArgKind::Tensor, true, {}, "any PWORD tensor"},
             {"dim", ArgKind::Int, false, int64_t{0}, "the axis"},
             {"start", ArgKind::Int, false, int64_t{0}, "first index"},
             {"end", ArgKind::Int, false, {}, "one past the last index (default: the extent)"},
             {"step", ArgKind::Int, false, int64_t{1}, ">= 1; 1 along the packed axis"}};
  op.validate = [](const Call& c) {
    require_dtype(c, "input", kAnyDtype);
    const SliceArgs a = slice_args(c);
    const int64_t n = logical(c.tensor("input"))[static_cast<std::size_t>(a.dim)];
    if (a.step < 1) c.refuse("step", "must be >= 1, got " + std::to_string(a.step));
    if (a.start < 0 || a.start >= n)
      c.refuse("start", std::to_string(c.i("start")) + " is outside 0.." + std::to_string(n - 1));
    if (a.end <= a.start)
      c.refuse("end", "the slice " + std::to_string(a.start) + ":" + std::to_string(a.end) + " is empty");
    if (a.last && (a.step != 1 || a.start % 64 != 0 || (a.end % 64 != 0)))
      c.refuse(a.step != 1    ? "step"
               : a.start % 64 ? "start"
                              : "end",
               "along the PWORD-packed last axis a slice takes whole PWORDs: start and end multiples of 64, step 1");
  };
  op.infer_output = [](const Call& c) {
    const SliceArgs a = slice_args(c);
    auto s = c.tensor("input").shape();
    const int64_t len = (a.end - a.start + a.step - 1) / a.step;
    s[static_cast<std::size_t>(a.dim)] = a.last ? len / 64 : len;
    return BufferInfo{s, c.tensor("input").dtype()};
  };
  op.implementation = [](const Call& c, const Tensor& out) {
    const SliceArgs a = slice_args(c);
    const auto d = static_cast<std::size_t>(a.dim);
    const int64_t start = a.last ? a.start / 64 : a.start;
    auto src = [&](const Idx& i) {
      Idx s = i;
      s[d] = i[d] * a.step + start;
      return s;
    };
    if (beyond_l1(c.tensor("input"), out)) {  // DDR to DDR: one SysDMA, no L1 (the §13 image trim)
      to_ddr(out);
      A::SysDMA([&] { A::grid_nest(out.shape(), [&](const Idx& i) { out.at(i) = c.tensor("input").at(src(i)); }); });
      return;
    }
    move(c.tensor("input"), out, out.shape(), src, same);
  };
  op.emulate = [](const Call& c, const Tensor& out) {
    const SliceArgs a = slice_args(c);
    Node n = node("slice", {c.tensor("input").name()}, {out.name()});
    n.num_attrs = {{"axis", {static_cast<double>(a.dim)}},
                   {"start", {static_cast<double>(a.start)}},
                   {"end", {static_cast<double>(a.end)}},
                   {"step", {static_cast<double>(a.step)}}};
    return std::vector<Node>{n};
  };
  return op;
}

// ---- reshape (a view) -----------------------------------------------------------------------------
std::vector<int64_t> reshape_target(const Call& c) {
  const Tensor x = c.tensor("input");
  int64_t total = 1;
  for (int64_t d : logical(x)) total *= d;
  auto s = c.ints("shape");
  int64_t known = 1, infer = -1;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (s[k] == -1) {
      if (infer >= 0) c.refuse("shape", "has more than one -1");
      infer = static_cast<int64_t>(k);
    } else if (s[k] <= 0) {
      c.refuse("shape", "has a non-positive extent " + std::to_string(s[k]));
    } else {
      known *= s[k];
    }
  }
  if (infer >= 0) s[static_cast<std::size_t>(infer)] = known ? total / known : 0;
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  // The guide writes a packed shape with its last extent in PWORDs ((1, 196, 6) for 6 x 64
  // channels, §13): a shape 64 times too small is that form (the two never both match).
  if (infer < 0 && n * 64 == total) {
    s.back() *= 64;
    n = total;
  }
  if (n != total)
    c.refuse("shape", shape_str(s) + " has " + std::to_string(n) + " elements, the input " + std::to_string(total));
  return s;
}

OpDef reshape_op() {
  OpDef op;
  op.name = "atomic.reshape";
  op.level = Level::Atomic;
  op.doc = "a view with another logical shape over the same storage (the last extent a multiple of 64)";
  op.args = {{"input", ArgKind::Tensor, true, {}, "any PWORD tensor"},
             {"shape", ArgKind::Ints, true, {}, "the new logical shape; one -1 is inferred"}};
  op.validate = [](const Call& c) {
    const auto s = reshape_target(c);
    if (s.back() % 64 != 0)
      c.refuse("shape", "the last (PWORD-packed) extent must stay a multiple of 64, got " + shape_str(s),
               "a reshape is a view: the 64 lanes of each PWORD stay together");
  };
  op.compose = [](const Call& c) {
    auto s = reshape_target(c);
    s.back() /= 64;
    Tensor v = c.tensor("input").reshape(s);
    v.node()->name = c.out_name();
    return v;
  };
  op.emulate = [](const Call& c, const Tensor& out) {
    Node n = node("reshape", {c.tensor("input").name()}, {out.name()});
    n.num_attrs["shape"] = as_doubles(reshape_target(c));
    return std::vector<Node>{n};
  };
  return op;
}

// ---- concat ---------------------------------------------------------------------------------------
OpDef concat_op() {
  OpDef op;
  op.name = "core.concat";
  op.level = Level::Core;
  op.doc = "joins tensors along dim, one copy datapath per part";
  op.args = {{"tensors", ArgKind::Tensors, true, {}, "two or more tensors of one dtype"},
             {"dim", ArgKind::Int, false, int64_t{0}, "the axis they are joined along"}};
  op.validate = [](const Call& c) {
    const auto ts = c.tensors("tensors");
    if (ts.empty()) c.refuse("tensors", "is empty");
    const auto s0 = ts[0].shape();
    const int64_t d = norm_dim(c, "dim", c.i("dim"), s0.size());
    for (const auto& t : ts) {
      if (t.dtype() != ts[0].dtype())
        c.refuse("tensors", t.name() + " is " + t.dtype() + ", " + ts[0].name() + " is " + ts[0].dtype());
      auto s = t.shape();
      if (s.size() != s0.size()) c.refuse("tensors", t.name() + " has another rank than " + ts[0].name());
      for (std::size_t k = 0; k < s.size(); ++k)
        if (static_cast<int64_t>(k) != d && s[k] != s0[k])
          c.refuse("tensors", shape_str(logical(t)) + " does not match " + shape_str(logical(ts[0])) + " off dim " +
                                  std::to_string(d));
    }
  };
  op.infer_output = [](const Call& c) {
    const auto ts = c.tensors("tensors");
    auto s = ts[0].shape();
    const auto d = static_cast<std::size_t>(norm_dim(c, "dim", c.i("dim"), s.size()));
    s[d] = 0;
    for (const auto& t : ts) s[d] += t.shape()[d];
    return BufferInfo{s, ts[0].dtype()};
  };
  op.implementation = [](const Call& c, const Tensor& out) {
    const auto ts = c.tensors("tensors");
    const auto d = static_cast<std::size_t>(norm_dim(c, "dim", c.i("dim"), out.shape().size()));
    int64_t base = 0;
    for (const auto& t : ts) {
      move(t, out, t.shape(), same, [&](const Idx& i) {
        Idx o = i;
        o[d] = i[d] + base;
        return o;
      });
      base += t.shape()[d];
    }
  };
  op.emulate = [](const Call& c, const Tensor& out) {
    std::vector<std::string> in;
    for (const auto& t : c.tensors("tensors")) in.push_back(t.name());
    Node n = node("concat", in, {out.name()});
    n.num_attrs["axis"] = {static_cast<double>(norm_dim(c, "dim", c.i("dim"), out.shape().size()))};
    return std::vector<Node>{n};
  };
  return op;
}

}  // namespace

void add_movement_ops(std::vector<OpDef>& r) {
  for (auto f : {copy_op, full_op, permute_op, transpose_op, vector_transpose_op, core_transpose_op, slice_op,
                 reshape_op, concat_op})
    r.push_back(f());
}

}  // namespace axcore::compiler::ops::detail
