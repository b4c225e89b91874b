// IFD / ODR walks (spec struct `walk`): addresses and guards from affine index expressions.
#include <algorithm>
#include <array>

#include "lower_internal.hpp"

namespace axcore::compiler::lower_detail {

const std::vector<Stmt>& peel(const std::vector<Stmt>& body, std::vector<Loop>& loops) {
  const std::vector<Stmt>* cur = &body;
  for (;;) {
    const Stmt* only = nullptr;
    int n = 0;
    for (const auto& s : *cur)
      if (s->kind != StmtKind::DeclReg && s->kind != StmtKind::OpMarker) {
        only = &s;
        ++n;
      }
    if (n != 1 || (*only)->kind != StmtKind::For) return *cur;
    loops.push_back({(*only)->var.get(), (*only)->start, (*only)->extent, (*only)->loc});
    cur = &(*only)->body;
  }
}

uint64_t WalkPlan::elements() const {
  uint64_t n = 1;
  for (const auto& d : dims) n *= static_cast<uint64_t>(d.size);
  return n;
}

static Affine flat_index(const BufferNode& buf, const std::vector<Expr>& idx, const SourceLoc& loc) {
  if (idx.size() != buf.shape.size())
    fail(loc, buf.name + " has " + std::to_string(buf.shape.size()) + " dimensions but is indexed with " +
                  std::to_string(idx.size()));
  Affine elem;
  int64_t stride = 1;
  for (std::size_t d = idx.size(); d-- > 0;) {
    if (idx[d]->kind == ExprKind::Ramp)
      fail(loc, "a stream unit moves one element per step: index " + buf.name + " with one element, not a slice");
    // The statement holding the access is where the error points (guide §14: "Expected linear
    // index" names the address; the loop header a variable came from is not the culprit).
    elem += affine_of(idx[d], loc).scaled(stride);
    stride *= buf.shape[d];
  }
  return elem;
}

static int64_t loop_index(const std::vector<Loop>& loops, const VarNode* v) {
  for (std::size_t k = 0; k < loops.size(); ++k)
    if (loops[k].var == v) return static_cast<int64_t>(k);
  return -1;
}

WalkPlan plan_address(const std::vector<Loop>& loops, const BufferNode& buf, const std::vector<Expr>& idx,
                      const RegionOf& region, const SourceLoc& loc) {
  const Affine elem = flat_index(buf, idx, loc);
  const int64_t rows = buf.dtype.rows();
  WalkPlan w;
  int64_t c = elem.constant;
  for (const auto& [v, coef] : elem.coef)
    if (loop_index(loops, v) < 0)
      fail(loc, "the index of " + buf.name + " uses " + v->name + ", which is not a loop of this block's datapath");
  for (const auto& l : loops) {
    const int64_t coef = elem.of(l.var);
    c += coef * l.start;
    w.dims.push_back({l.extent, coef * rows, {}});
  }
  const L1Region r = region(buf, loc);
  w.base_row = static_cast<int64_t>(r.base_row) + c * rows;
  if (c < 0 || c >= buf.root()->elements())
    fail(loc, "the first element " + buf.name + " reads is outside the buffer (element " + std::to_string(c) + " of " +
                  std::to_string(buf.root()->elements()) + ")");
  return w;
}

WalkPlan plan_all_pad(const std::vector<Loop>& loops) {
  WalkPlan w;
  for (const auto& l : loops) w.dims.push_back({l.extent, 0, {}});
  w.guards.push_back({-1, 1});  // 0 <= -1 < 1 never holds
  return w;
}

namespace {
struct Bound {
  Affine vars;                    // coefficient part (constant 0)
  std::optional<int64_t> lo, hi;  // lo <= V < hi
};

}  // namespace

void add_guards(WalkPlan& w, const std::vector<Loop>& loops, const Expr& cond, const SourceLoc& loc) {
  std::vector<Expr> terms;
  split_conjuncts(cond, terms);
  std::vector<Bound> bounds;
  for (const auto& t : terms) {
    if (!is_compare(t->kind) || t->kind == ExprKind::And || t->kind == ExprKind::Eq || t->kind == ExprKind::Ne)
      fail(loc, "a guard is a conjunction of idx >= lo / idx < hi comparisons",
           "A.all(ih >= 0, ih < H, iw >= 0, iw < W)");
    Affine a = affine_of(t->args[0], loc);
    a += affine_of(t->args[1], loc).scaled(-1);  // a = lhs - rhs
    const int64_t k = a.constant;
    Affine v = a;
    v.constant = 0;
    // V + k REL 0
    std::optional<int64_t> lo, hi;
    switch (t->kind) {
      case ExprKind::Ge: lo = -k; break;      // V >= -k
      case ExprKind::Gt: lo = -k + 1; break;  // V > -k
      case ExprKind::Lt: hi = -k; break;      // V < -k
      case ExprKind::Le: hi = -k + 1; break;  // V <= -k
      default: break;
    }
    auto it = std::find_if(bounds.begin(), bounds.end(), [&](const Bound& b) { return b.vars.same_vars(v); });
    if (it == bounds.end()) {
      bounds.push_back({v, lo, hi});
    } else {
      if (lo) it->lo = it->lo ? std::max(*it->lo, *lo) : *lo;
      if (hi) it->hi = it->hi ? std::min(*it->hi, *hi) : *hi;
    }
  }
  for (const auto& b : bounds) {
    if (w.guards.size() >= spec::param::walk_guards)
      fail(loc,
           "the condition needs " + std::to_string(bounds.size()) + " guards; a walk has " +
               std::to_string(spec::param::walk_guards),
           "guard at most three index expressions (one idx >= 0 / idx < extent pair each)");
    // V over the walk counters: V = sum c_v (start_v + i_v).
    int64_t shift = 0, vmin = 0, vmax = 0;
    for (const auto& [var, c] : b.vars.coef) {
      const int64_t k = loop_index(loops, var);
      if (k < 0) fail(loc, "the condition uses " + var->name + ", which is not a loop of this block's datapath");
      const Loop& l = loops[static_cast<std::size_t>(k)];
      shift += c * l.start;
      vmin += c > 0 ? 0 : c * (l.extent - 1);
      vmax += c > 0 ? c * (l.extent - 1) : 0;
    }
    const int64_t lo = b.lo ? *b.lo : shift + vmin;
    const int64_t hi = b.hi ? *b.hi : shift + vmax + 1;
    const std::size_t g = w.guards.size();
    w.guards.push_back({shift - lo, std::max<int64_t>(0, hi - lo)});
    for (std::size_t k = 0; k < loops.size(); ++k) w.dims[k].g[g] = b.vars.of(loops[k].var);
  }
}

std::vector<Dim> merge_dims(std::vector<Dim> dims) {
  // Drop unit dimensions, then merge (outer, inner) when outer = inner * size in every coefficient.
  std::vector<Dim> d;
  for (const auto& x : dims)
    if (x.size != 1) d.push_back(x);
  if (d.empty()) d.push_back({1, 0, {}});
  bool merged = true;
  while (merged) {
    merged = false;
    for (std::size_t k = 0; k + 1 < d.size(); ++k) {
      const Dim& o = d[k];
      const Dim& i = d[k + 1];
      bool ok = o.stride == i.stride * i.size;
      for (int g = 0; g < 3; ++g)
        ok = ok && o.g[static_cast<std::size_t>(g)] == i.g[static_cast<std::size_t>(g)] * i.size;
      if (ok) {
        d[k] = {o.size * i.size, i.stride, i.g};
        d.erase(d.begin() + static_cast<std::ptrdiff_t>(k) + 1);
        merged = true;
        break;
      }
    }
  }
  return d;
}

spec::Walk encode_walk(WalkPlan w, spec::Dtype dtype, spec::Dtype cast_from, uint32_t pad_value, const char* unit,
                       const SourceLoc& loc) {
  std::vector<Dim> dims = merge_dims(w.dims);
  if (dims.size() > spec::param::walk_dims)
    fail(loc,
         std::string("the ") + unit + " walk needs " + std::to_string(dims.size()) + " dimensions; a walk has " +
             std::to_string(spec::param::walk_dims),
         "fewer loop levels around the access, or contiguous ones the compiler can merge");
  spec::Walk r;
  r.base_row = static_cast<uint32_t>(w.base_row);
  r.dtype = dtype;
  r.cast_from = cast_from;
  r.ndims = static_cast<uint32_t>(dims.size());
  r.nguards = static_cast<uint32_t>(w.guards.size());
  r.pad_value = pad_value;
  uint32_t* sizes[] = {&r.d0_size, &r.d1_size, &r.d2_size, &r.d3_size, &r.d4_size, &r.d5_size};
  int32_t* strides[] = {&r.d0_stride, &r.d1_stride, &r.d2_stride, &r.d3_stride, &r.d4_stride, &r.d5_stride};
  int32_t* gc[3][6] = {{&r.g0_coef0, &r.g0_coef1, &r.g0_coef2, &r.g0_coef3, &r.g0_coef4, &r.g0_coef5},
                       {&r.g1_coef0, &r.g1_coef1, &r.g1_coef2, &r.g1_coef3, &r.g1_coef4, &r.g1_coef5},
                       {&r.g2_coef0, &r.g2_coef1, &r.g2_coef2, &r.g2_coef3, &r.g2_coef4, &r.g2_coef5}};
  for (std::size_t k = 0; k < 6; ++k) *sizes[k] = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const Dim& d = dims[dims.size() - 1 - k];  // d0 = innermost
    *sizes[k] = static_cast<uint32_t>(d.size);
    *strides[k] = static_cast<int32_t>(d.stride);
    for (std::size_t g = 0; g < w.guards.size(); ++g) *gc[g][k] = static_cast<int32_t>(d.g[g]);
  }
  int32_t* go[] = {&r.g0_offset, &r.g1_offset, &r.g2_offset};
  uint32_t* ge[] = {&r.g0_extent, &r.g1_extent, &r.g2_extent};
  for (std::size_t g = 0; g < w.guards.size(); ++g) {
    *go[g] = static_cast<int32_t>(w.guards[g].offset);
    *ge[g] = static_cast<uint32_t>(w.guards[g].extent);
  }
  try {
    (void)r.encode();
  } catch (const spec::FieldRangeError& e) {
    fail(loc, std::string("the ") + unit + " walk does not fit its descriptor: " + e.what());
  }
  return r;
}

std::optional<spec::Walk> slice_walk(const spec::Walk& w, uint64_t from, uint64_t count) {
  spec::Walk r = w;
  uint32_t* sizes[] = {&r.d0_size, &r.d1_size, &r.d2_size, &r.d3_size, &r.d4_size, &r.d5_size};
  int32_t* strides[] = {&r.d0_stride, &r.d1_stride, &r.d2_stride, &r.d3_stride, &r.d4_stride, &r.d5_stride};
  int32_t* gc[3][6] = {{&r.g0_coef0, &r.g0_coef1, &r.g0_coef2, &r.g0_coef3, &r.g0_coef4, &r.g0_coef5},
                       {&r.g1_coef0, &r.g1_coef1, &r.g1_coef2, &r.g1_coef3, &r.g1_coef4, &r.g1_coef5},
                       {&r.g2_coef0, &r.g2_coef1, &r.g2_coef2, &r.g2_coef3, &r.g2_coef4, &r.g2_coef5}};
  int32_t* go[] = {&r.g0_offset, &r.g1_offset, &r.g2_offset};
  const uint32_t nd = std::max<uint32_t>(r.ndims, 1);
  uint64_t total = 1;
  for (uint32_t k = 0; k < nd; ++k) total *= *sizes[k];
  if (from == 0 && count == total) return r;
  if (count == 0 || from + count > total) return std::nullopt;
  if (r.transpose && (from % spec::param::pword_lanes != 0 || count % spec::param::pword_lanes != 0))
    return std::nullopt;
  // The deepest level L whose steps (P elements each) both ends fall on: the slice is n steps of
  // level L from counter values (i_L, i_L+1, ...), one walk when it stays inside one run of level L.
  uint32_t level = 0;
  uint64_t step = 1;
  while (level + 1 < nd && from % (step * *sizes[level]) == 0 && count % (step * *sizes[level]) == 0)
    step *= *sizes[level++];
  const uint64_t n = count / step;
  uint64_t at = from / step;
  if (at % *sizes[level] + n > *sizes[level]) return std::nullopt;
  int64_t base = r.base_row;
  std::array<int64_t, 3> off = {r.g0_offset, r.g1_offset, r.g2_offset};
  for (uint32_t k = level; k < nd; ++k) {
    const int64_t i = static_cast<int64_t>(at % *sizes[k]);
    at /= *sizes[k];
    base += i * *strides[k];
    for (uint32_t g = 0; g < r.nguards; ++g) off[g] += i * *gc[g][k];
    if (k > level) {
      *sizes[k] = 1;
      *strides[k] = 0;
      for (auto& g : gc) *g[k] = 0;
    }
  }
  *sizes[level] = static_cast<uint32_t>(n);
  r.ndims = level + 1;
  if (base < 0) return std::nullopt;
  r.base_row = static_cast<uint32_t>(base);
  for (uint32_t g = 0; g < r.nguards; ++g) *go[g] = static_cast<int32_t>(off[g]);
  try {
    (void)r.encode();
  } catch (const spec::FieldRangeError&) { return std::nullopt; }
  return r;
}

}  // namespace axcore::compiler::lower_detail
