// The builder (axcore/compiler/script.hpp) for the Python front end. The front end sets where
// each statement was written (set_location) and calls these; the builder records that location,
// so its contract errors (and the lowering's, later) point into the user's .py file.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include <axcore/compiler/printer.hpp>
#include <axcore/compiler/script.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace axcore::python {
namespace {

namespace A = compiler::A;
using compiler::SourceLoc;

SourceLoc here() {
  const SourceLoc* l = compiler::front_end_location();
  return l ? *l : SourceLoc{};
}

compiler::Scope scope_of(const std::string& s) {
  auto sc = compiler::parse_scope(s);
  if (!sc)
    compiler::fail(here(), "unknown scope '" + s + "'",
                   "one of A.DDR, A.L2, A.L1, A.DDR_WEAK, A.L2_WEAK, A.L1_WEAK, A.IMC, A.DPU_REGISTERS, "
                   "A.MVM_ACCUMULATOR");
  return *sc;
}

A::Body body_of(const py::function& f) {
  if (!f) return {};
  return [f] { f(); };
}

// A Python operand as a builder expression (axcore.script._values.value): a Value as is, a
// register read, a Python int (or bool, or anything with __index__ but a buffer or a stream) an
// immediate, a Python float a float32 immediate; anything else refused at the statement's line.
// One crossing for what took a Python function and a Value() construction per operand.
A::Value to_value(py::handle h) {
  PyObject* o = h.ptr();
  if (PyLong_CheckExact(o)) return A::Value(h.cast<int64_t>());
  if (is<A::Value>(h)) return h.cast<const A::Value&>();
  if (is<A::Reg>(h)) return A::Value(h.cast<const A::Reg&>());
  if (PyBool_Check(o)) return A::Value(int64_t{o == Py_True});
  if (PyLong_Check(o)) return A::Value(h.cast<int64_t>());
  if (PyFloat_Check(o)) return A::float32(PyFloat_AS_DOUBLE(o));
  if (py::hasattr(h, "__index__") && !is<A::BufferHandle>(h) && !is<A::StreamHandle>(h))
    return A::Value(py::int_(py::reinterpret_borrow<py::object>(h)).cast<int64_t>());
  if (h.is_none())
    compiler::fail(here(), "a name bound to Python None is used as a value",
                   "bind a real buffer or value (the parser reads both arms of an if, §4.2, §14)");
  compiler::fail(
      here(), "a " + std::string(py::str(py::type::handle_of(h).attr("__name__"))) + " is not an AxScript value here",
      "a buffer element, a stream pop, a register, a loop variable or a build-time number");
}

// A subscript as the builder's index list (axcore.script._values.indices): `a:b` is
// A.slice(a, b), a tuple spreads (buf[loop_vars] with the tuple of A.grid(..., always_tuple=True)).
void add_indices(py::handle key, std::vector<A::Value>& out) {
  if (PyTuple_Check(key.ptr())) {
    for (py::handle k : py::reinterpret_borrow<py::tuple>(key)) add_indices(k, out);
    return;
  }
  if (PySlice_Check(key.ptr())) {
    const py::object start = key.attr("start"), stop = key.attr("stop"), step = key.attr("step");
    if (!step.is_none() && !(PyLong_CheckExact(step.ptr()) && step.cast<int64_t>() == 1))
      compiler::fail(here(), "a slice with a step is not a buffer index", "A.Ramp(base, step, lanes)");
    if (start.is_none() || stop.is_none()) compiler::fail(here(), "a buffer slice needs both bounds", "buf[a:b]");
    out.push_back(A::slice(to_value(start), to_value(stop)));
    return;
  }
  out.push_back(to_value(key));
}

std::vector<A::Value> indices(py::handle key) {
  std::vector<A::Value> out;
  add_indices(key, out);
  return out;
}

// The one index of a register file (A.array) or the accumulator.
A::Value one_index(py::handle key, const std::string& name) {
  auto idx = indices(key);
  if (idx.size() != 1)
    compiler::fail(here(), "register file " + name + " takes one index, got " + std::to_string(idx.size()));
  return std::move(idx[0]);
}

// A name given as a string or as an object carrying it (an Enum's .value, a dtype's .name).
std::string text_of(py::handle v, const char* attr) {
  if (PyUnicode_Check(v.ptr())) return v.cast<std::string>();
  return py::str(py::getattr(v, attr, v)).cast<std::string>();
}

// A scope: None (inferred) is "", A.DDR or "DDR" its name.
std::string scope_text(py::handle scope) { return scope.is_none() ? std::string() : text_of(scope, "value"); }

// An element of the accumulator, `acc[key]`: the builder refuses reading it and storing into it
// (the accumulator takes no index), each with its own message.
A::Element acc_element(const A::Acc& a, py::handle key) {
  std::vector<compiler::Expr> idx;
  for (const A::Value& v : indices(key)) idx.push_back(v.expr());
  return A::Element(a.node(), std::move(idx), here());
}

void bind_values(py::module_& m) {
  py::class_<A::Value>(m, "Value", "an expression: index arithmetic, a loaded value, a DPU computation")
      .def(py::init([](int64_t v) { return A::Value(v); }))
      .def(
          "__add__", [](const A::Value& a, const A::Value& b) { return a + b; }, py::is_operator())
      .def(
          "__radd__", [](const A::Value& a, const A::Value& b) { return b + a; }, py::is_operator())
      .def(
          "__sub__", [](const A::Value& a, const A::Value& b) { return a - b; }, py::is_operator())
      .def(
          "__rsub__", [](const A::Value& a, const A::Value& b) { return b - a; }, py::is_operator())
      .def(
          "__mul__", [](const A::Value& a, const A::Value& b) { return a * b; }, py::is_operator())
      .def(
          "__rmul__", [](const A::Value& a, const A::Value& b) { return b * a; }, py::is_operator())
      .def(
          "__floordiv__", [](const A::Value& a, const A::Value& b) { return a / b; }, py::is_operator())
      .def(
          "__rfloordiv__", [](const A::Value& a, const A::Value& b) { return b / a; }, py::is_operator())
      .def(
          "__mod__", [](const A::Value& a, const A::Value& b) { return a % b; }, py::is_operator())
      .def(
          "__rmod__", [](const A::Value& a, const A::Value& b) { return b % a; }, py::is_operator())
      // A Python float is a float32 immediate: the builder and the lowering say where one is refused
      // (a DPU operand has no float18 literal, guide §7).
      .def(
          "__add__", [](const A::Value& a, double b) { return a + A::float32(b); }, py::is_operator())
      .def(
          "__radd__", [](const A::Value& a, double b) { return A::float32(b) + a; }, py::is_operator())
      .def(
          "__sub__", [](const A::Value& a, double b) { return a - A::float32(b); }, py::is_operator())
      .def(
          "__rsub__", [](const A::Value& a, double b) { return A::float32(b) - a; }, py::is_operator())
      .def(
          "__mul__", [](const A::Value& a, double b) { return a * A::float32(b); }, py::is_operator())
      .def(
          "__rmul__", [](const A::Value& a, double b) { return A::float32(b) * a; }, py::is_operator())
      .def("__neg__", [](const A::Value& a) { return -a; })
      .def(
          "__lt__", [](const A::Value& a, const A::Value& b) { return a < b; }, py::is_operator())
      .def(
          "__le__", [](const A::Value& a, const A::Value& b) { return a <= b; }, py::is_operator())
      .def(
          "__gt__", [](const A::Value& a, const A::Value& b) { return a > b; }, py::is_operator())
      .def(
          "__ge__", [](const A::Value& a, const A::Value& b) { return a >= b; }, py::is_operator())
      .def(
          "__eq__", [](const A::Value& a, const A::Value& b) { return a == b; }, py::is_operator())
      .def(
          "__and__", [](const A::Value& a, const A::Value& b) { return a && b; }, py::is_operator())
      .def(
          "__rand__", [](const A::Value& a, const A::Value& b) { return b && a; }, py::is_operator())
      .def("__bool__",
           [](const A::Value&) -> bool {
             compiler::fail(here(), "a device value has no build-time truth value",
                            "select a value with A.if_then_else(cond, a, b), or a code path with A.If / A.when");
           })
      .def("__index__",
           [](const A::Value&) -> int64_t {
             compiler::fail(here(), "a device value is not a build-time integer",
                            "use it as an index or in an expression; build-time Python needs a Python int");
           })
      .def("__repr__", [](const A::Value& v) { return "<A.Value " + compiler::dump(v.expr()) + ">"; })
      .def_property_readonly("dtype",
                             [](const A::Value& v) { return v.expr() ? v.expr()->dtype.str() : std::string(); });
  py::implicitly_convertible<py::int_, A::Value>();
  m.attr("Value").attr("__hash__") = py::none();
}

void bind_handles(py::module_& m) {
  py::class_<A::BufferHandle>(m, "BufferHandle", "a buffer: an input, a local, a constant, the IMC")
      .def("load", [](const A::BufferHandle& b, const std::vector<A::Value>& idx) { return b.at(idx).value(); })
      .def("store",
           [](const A::BufferHandle& b, const std::vector<A::Value>& idx, const A::Value& v) { b.at(idx) = v; })
      .def("__getitem__",
           [](const A::BufferHandle& b, py::handle key) -> py::object {
             // buf[k] with a build-time k on a buffer of two or more dimensions: the view of slot k
             // (guide §12, a pipelined buffer indexed by step); otherwise an element.
             if (PyLong_Check(key.ptr()) && !PyBool_Check(key.ptr()) && b.shape().size() >= 2)
               return py::cast(b[A::Ix(A::Value(key.cast<int64_t>()))]);
             return py::cast(b.at(indices(key)).value());
           })
      .def("__setitem__",
           [](const A::BufferHandle& b, py::handle key, py::handle v) { b.at(indices(key)) = to_value(v); })
      .def_property_readonly("shape",
                             [](const A::BufferHandle& b) {
                               py::tuple t(b.shape().size());
                               for (std::size_t k = 0; k < b.shape().size(); ++k) t[k] = b.shape()[k];
                               return t;
                             })
      .def_property_readonly("dtype", &A::BufferHandle::dtype)
      .def_property_readonly("name", &A::BufferHandle::name)
      .def("scope", [](const A::BufferHandle& b) { return compiler::to_string(b.scope()); })
      .def("reshape", [](const A::BufferHandle& b, std::vector<int64_t> s) { return b.reshape(std::move(s)); })
      .def("__repr__", [](const A::BufferHandle& b) { return "<A.Buffer " + b.name() + " " + b.dtype() + ">"; });
  py::class_<A::Reg>(m, "Reg", "a DPU register file (A.array) or register (A.var)")
      .def("read", [](const A::Reg& r) { return A::Value(r); })
      .def("write", [](A::Reg& r, const A::Value& v) { r = v; })
      .def("load", [](const A::Reg& r, const A::Value& i) { return r[A::Ix(i)].value(); })
      .def("store", [](const A::Reg& r, const A::Value& i, const A::Value& v) { r[A::Ix(i)] = v; })
      .def("__getitem__",
           [](const A::Reg& r, py::handle key) { return r[A::Ix(one_index(key, r.node()->name))].value(); })
      .def("__setitem__", [](const A::Reg& r, py::handle key,
                             py::handle v) { r[A::Ix(one_index(key, r.node()->name))] = to_value(v); })
      .def_property_readonly("is_var", [](const A::Reg& r) { return r.node()->is_var; })
      .def_property_readonly("name", [](const A::Reg& r) { return r.node()->name; })
      .def_property_readonly("dtype", [](const A::Reg& r) { return r.node()->dtype.str(); });
  py::class_<A::Acc>(m, "Acc", "the MVM accumulator (A.mvm_accumulator())")
      .def("iadd", [](A::Acc& a, const A::Value& v) { a += v; })
      // Both refused by the builder (the accumulator takes no index), with the guide's message.
      .def("__getitem__", [](const A::Acc& a, py::handle key) { return acc_element(a, key).value(); })
      .def("__setitem__", [](const A::Acc& a, py::handle key, py::handle v) { acc_element(a, key) = to_value(v); })
      .def_property_readonly("name", [](const A::Acc& a) { return a.node()->name; });
  py::class_<A::StreamHandle>(m, "Stream", "a stream between two units (A.decl_stream)")
      .def("push",
           [](const A::StreamHandle& s, py::handle v) {
             if (is<A::Acc>(v))
               s.push(v.cast<const A::Acc&>());
             else
               s.push(to_value(v));
           })
      .def("pop", [](const A::StreamHandle& s) { return s.pop(); })
      .def_property_readonly("dtype", [](const A::StreamHandle& s) { return s.node()->dtype.str(); })
      .def_property_readonly("name", [](const A::StreamHandle& s) { return s.node()->name; });
  py::class_<A::Func>(m, "Func", "a prim_func under construction")
      .def("input", [](A::Func& f, const std::string& name, std::vector<int64_t> shape, const std::string& dtype,
                       const std::string& scope) { return f.input(name, std::move(shape), dtype, scope_of(scope)); })
      .def_property_readonly("name", [](const A::Func& f) { return f.ir().name; });
  py::class_<A::Module>(m, "Module", "an ir_module under construction")
      .def(py::init<std::string>())
      .def("prim_func", [](A::Module& mod, const std::string& name) { return mod.prim_func(name); })
      .def_property_readonly("name", [](const A::Module& mod) { return mod.ir().name; })
      .def("dump", [](const A::Module& mod) { return compiler::dump(mod.ir()); });
}

void bind_constructs(py::module_& m) {
  // The statement's location: the parser sets the file once per region (set_location) and the line
  // per statement (set_line, no string to convert); the builder copies it into what it records.
  m.def("set_location",
        [](const std::string& file, uint32_t line, uint32_t column) {
          statement_location() = SourceLoc{file, line, column};
          compiler::set_front_end_location(&statement_location());
        })
      .def("set_line", &set_statement_line)
      .def("location",
           []() -> py::object {
             const SourceLoc* l = compiler::front_end_location();
             if (!l) return py::none();
             return py::make_tuple(l->file, l->line, l->column);
           })
      .def("clear_location", [] { compiler::set_front_end_location(nullptr); })
      .def("fail", [](const std::string& message, const std::string& hint) { compiler::fail(here(), message, hint); })
      .def("value", [](py::handle v) { return to_value(v); })
      .def("indices", [](py::handle key) { return indices(key); })
      // buffers, streams, registers
      .def("alloc_buffer",
           [](std::vector<int64_t> shape, const std::string& dtype, const std::string& scope, const std::string& name) {
             return A::alloc_buffer(std::move(shape), dtype, scope_of(scope), name);
           })
      .def("alloc_constant",
           [](const py::array_t<double, py::array::c_style | py::array::forcecast>& values, const std::string& dtype,
              const std::string& scope, std::vector<int64_t> shape, const std::string& name) {
             std::vector<double> v(values.data(), values.data() + values.size());
             return A::alloc_constant(std::move(v), dtype, scope_of(scope), std::move(shape), name);
           })
      .def("alloc_imc", [](std::vector<int64_t> tiles, const std::string& dtype, int core,
                           const std::string& name) { return A::alloc_imc(std::move(tiles), dtype, core, name); })
      .def("mvm_accumulator", [] { return A::mvm_accumulator(); })
      .def("reset_accumulator", [](const A::Acc& a) { A::reset_accumulator(a); })
      .def("var", [](const std::string& dtype, const std::string& name) { return A::var(dtype, name); })
      .def("array",
           [](const std::string& dtype, int64_t size, const std::string& name) { return A::array(dtype, size, name); })
      .def(
          "decl_stream",
          [](const std::string& dtype, py::handle scope, const std::string& name) {
            return A::decl_stream(dtype, scope_text(scope), name.empty() ? name_hint() : name);
          },
          py::arg("dtype"), py::arg("scope") = py::none(), py::arg("name") = "",
          "A.decl_stream(dtype, scope=None, name=''): a stream between two units; its device scope is inferred "
          "from the units (§6.1). Named after the variable it is assigned to unless name is given.")
      .def("output", [](const A::BufferHandle& b) { A::output(b); })
      // loops
      .def("open_loop",
           [](const std::string& kind, int64_t start, int64_t extent, std::optional<std::vector<int64_t>> tiles) {
             const compiler::LoopKind k = loop_kind(kind);
             std::optional<compiler::TileBounds> tb;
             if (tiles) {
               if (tiles->size() != 4) throw std::invalid_argument("tiles: (tile_min, tile_max, num_tiles, drain)");
               tb = compiler::TileBounds{(*tiles)[0], (*tiles)[1], (*tiles)[2], (*tiles)[3]};
               // A.tiles' own checks (bounds >= 0, tile_min <= tile_max, drain 0..2).
               (void)A::tiles(extent, *tb);
             }
             return A::detail::open_loop(k, start, extent, here(), tb);
           })
      .def("close_loop", [] { A::detail::close_loop(); })
      // blocks
      .def("Datapath", [](const std::optional<std::string>& kind, int core, const std::string& id,
                          const py::function& body) { A::Datapath(datapath_args(kind, core, id), body_of(body)); })
      .def("IFD",
           [](std::optional<int> num, const py::function& body) {
             if (num)
               A::IFD(*num, body_of(body));
             else
               A::IFD(body_of(body));  // A.IFD() without num: the pushed stream's pin decides (§6.1)
           })
      .def("MatMul", [](const py::function& body) { A::MatMul(body_of(body)); })
      .def("DPU", [](const py::function& body) { A::DPU(body_of(body)); })
      .def("init", [](const py::function& body) { A::init(body_of(body)); })
      .def("ODR", [](const py::function& body) { A::ODR(body_of(body)); })
      .def("LoadIMC", [](const py::function& body) { A::LoadIMC(body_of(body)); })
      .def("CoreDMA",
           [](int core, const std::string& id, const py::function& body) { A::CoreDMA(body_of(body), core, id); })
      .def("SysDMA", [](const std::string& id, const py::function& body) { A::SysDMA(body_of(body), id); })
      .def("AICore", [](int core, const py::function& body) { A::AICore(core, body_of(body)); })
      .def("fuse",
           [](bool unsafe, bool strict, bool reg, bool loops, const py::function& body) {
             A::fuse(A::FuseArgs{unsafe, strict, reg, loops}, body_of(body));
           })
      .def("prevent_fuse", [](const py::function& body) { A::prevent_fuse(body_of(body)); })
      .def("If",
           [](const A::Value& c, const py::function& then_body, const std::optional<py::function>& else_body) {
             A::If(c, body_of(then_body), else_body ? body_of(*else_body) : A::Body{});
           })
      .def("when", [](const A::Value& c, const py::function& body) { A::when(c, body_of(body)); })
      .def("drop", [](const A::Value& v) { A::drop(v); })
      // sync
      .def("sync", [](const std::vector<std::string>& w, const std::vector<std::string>& s,
                      const std::vector<A::BufferHandle>& buffers) { A::sync(w, s, buffers); })
      .def("bypass", [] { A::bypass(); })
      .def("waits", [](const std::string& id) { A::waits(id); })
      .def("signals", [](const std::string& id) { A::signals(id); })
      .def("barrier", [](const std::vector<int>& cores) { A::barrier(cores); })
      .def("op_marker", [](const std::string& name) { A::op_marker(name); })
      // values
      .def(
          "cast", [](py::handle v, py::handle dtype) { return A::cast(to_value(v), text_of(dtype, "name")); },
          py::arg("v"), py::arg("dtype"),
          "A.cast(v, dtype): v converted to dtype (a name, or a dtype object's .name), rounding and clipping as "
          "the target type does (§5)")
      .def("vtrsp", [](const A::Value& v) { return A::vtrsp(v); })
      .def("Broadcast", [](const A::Value& v, int64_t lanes) { return A::Broadcast(v, lanes); })
      .def("if_then_else",
           [](const A::Value& c, const A::Value& a, const A::Value& b) { return A::if_then_else(c, a, b); })
      .def("int8", [](int64_t v) { return A::int8(v); })
      .def("int32", [](int64_t v) { return A::int32(v); })
      .def("float32", [](double v) { return A::float32(v); })
      .def("Ramp", [](const A::Value& base, int64_t step, int64_t lanes) { return A::Ramp(base, step, lanes); })
      .def("slice", [](const A::Value& a, const A::Value& b) { return A::slice(a, b); })
      .def("all",
           [](const std::vector<A::Value>& conds) {
             if (conds.empty()) compiler::fail(here(), "tir.all() needs at least one condition");
             A::Value r = conds[0];
             for (std::size_t k = 1; k < conds.size(); ++k) r = r && conds[k];
             return r;
           })
      .def("Min", [](const A::Value& a, const A::Value& b) { return A::Min(a, b); })
      .def("Max", [](const A::Value& a, const A::Value& b) { return A::Max(a, b); })
      .def("mvm_1x1", [](const A::Value& x, const A::Value& w) { return A::mvm_1x1(x, w); })
      .def("lut", [](const A::Value& x, const A::Value& t) { return A::dpu::lut(x, t); })
      .def("lut_chain", [](const A::Value& x, const A::Value& t, int64_t n) { return A::dpu::lut(x, t, n); })
      .def("prelu", [](const A::Value& x, const A::Value& s) { return A::dpu::prelu(x, s); })
      .def("fma", [](const A::Value& a, const A::Value& b, const A::Value& c) { return A::dpu::fma(a, b, c); })
      .def("add_reduce", [](const A::Value& x) { return A::dpu::add_reduce(x); })
      .def("max_reduce", [](const A::Value& x) { return A::dpu::max_reduce(x); })
      .def("min_reduce", [](const A::Value& x) { return A::dpu::min_reduce(x); });
}

// The guide's explicit store and integer immediate (§5, §8.4, §8.5): A.IntImm(dtype, value),
// A.buffer_store(buf or register file, value, indices); the block predicate A.where (§10); and
// A.dpu.ops.dpu_reduce (§7).
void bind_store_and_immediate(py::module_& m) {
  m.def("where", [](py::handle cond) { A::where(to_value(cond)); });  // A.where(cond), §10
  m.def("dpu_reduce", [](const A::Value& x, const std::string& op) { return A::dpu::dpu_reduce(x, op); });  // §7
  m.def("IntImm", [](const std::string& dtype, int64_t v) {
     return A::IntImm(dtype, v);
   }).def("buffer_store", [](py::handle target, py::handle value, py::handle key) {
    const auto idx = indices(PyList_Check(key.ptr()) ? py::tuple(py::reinterpret_borrow<py::list>(key)) : key);
    if (is<A::Reg>(target))
      A::buffer_store(target.cast<const A::Reg&>(), to_value(value), idx);
    else if (is<A::BufferHandle>(target))
      A::buffer_store(target.cast<const A::BufferHandle&>(), to_value(value), idx);
    else
      compiler::fail(here(),
                     "A.buffer_store stores into a buffer or a DPU register file, not a " +
                         std::string(py::str(py::type::handle_of(target).attr("__name__"))),
                     "A.buffer_store(regs, value, (i,)); for an operand, out[idx] = value (§8.4)");
  });
}

}  // namespace

SourceLoc& statement_location() {
  static SourceLoc statement;
  return statement;
}

void set_statement_line(uint32_t line, uint32_t column) {
  if (!compiler::front_end_location())
    throw std::logic_error("set_line before set_location: the region's file is not set");
  statement_location().line = line;
  statement_location().column = column;
  compiler::set_front_end_location(&statement_location());
}

A::DatapathArgs datapath_args(const std::optional<std::string>& kind, int core, const std::string& id) {
  A::DatapathArgs a;
  if (kind) {
    if (*kind == "DP_MVMEXE" || *kind == "MVMEXE")
      a.kind = compiler::DpKind::MVMEXE;
    else if (*kind == "DP_DWPU" || *kind == "DWPU")
      a.kind = compiler::DpKind::DWPU;
    else
      compiler::fail(here(), "unknown datapath kind '" + *kind + "'", "A.DP_MVMEXE or A.DP_DWPU");
  }
  a.core = core;
  a.id = id;
  return a;
}

compiler::LoopKind loop_kind(const std::string& kind) {
  if (kind == "serial") return compiler::LoopKind::Serial;
  if (kind == "grid") return compiler::LoopKind::Grid;
  if (kind == "unroll") return compiler::LoopKind::Unroll;
  throw std::invalid_argument("loop kind " + kind);
}

// The guide's tile handles (§11.2, §12): A.tiles' handle, buf.tile(handle, dim=N), and the tile
// loop the builder unrolls (with A.tiles(...) as t: around operator calls).
void bind_tiles(py::module_& m) {
  py::class_<A::Tile>(m, "Tile", "a tile handle of A.tiles: a ramp over the extent (base, lanes)")
      .def_readonly("base", &A::Tile::base)
      .def_readonly("lanes", &A::Tile::lanes)
      .def_readonly("index", &A::Tile::index)
      .def_readonly("step", &A::Tile::step)
      .def_readonly("size", &A::Tile::size)
      .def_readonly("extent", &A::Tile::extent)
      .def_readonly("num_tiles", &A::Tile::num_tiles)
      .def_readonly("drain", &A::Tile::drain)
      .def_readonly("active", &A::Tile::active)
      .def("stage", &A::Tile::stage, py::arg("k"), "the tile pipeline stage k works on in this step")
      .def_property_readonly("is_load", &A::Tile::is_load)
      .def_property_readonly("is_compute", &A::Tile::is_compute)
      .def_property_readonly("is_store", &A::Tile::is_store)
      .def("slot", &A::Tile::slot, py::arg("slots") = 2, "index % slots: a pipelined buffer's slot")
      .def(
          "ramp", [](const A::Tile& t) { return A::Value(t); }, "A.Ramp(base, 1, lanes)")
      .def("__repr__", [](const A::Tile& t) {
        return "<A.tiles handle step " + std::to_string(t.step) + ": tile " + std::to_string(t.index) + " base " +
               std::to_string(t.base) + " lanes " + std::to_string(t.lanes) + (t.active ? "" : " (idle)") + ">";
      });
  py::reinterpret_borrow<py::class_<A::BufferHandle>>(m.attr("BufferHandle"))
      .def(
          "tile",
          [](const A::BufferHandle& b, py::handle handle, int dim) {
            if (is<A::Tile>(handle)) return b.tile(handle.cast<const A::Tile&>(), dim);
            if (is<A::Value>(handle)) return b.tile(handle.cast<const A::Value&>(), dim);
            compiler::fail(here(), b.name() +
                                       ".tile(...) takes a tile handle (with A.tiles(...) as t) or an A.Ramp, not a " +
                                       std::string(py::str(py::type::handle_of(handle).attr("__name__"))));
          },
          py::arg("handle"), py::arg("dim") = 0,
          "buf.tile(handle, dim=N) (§11.2): the region a tile handle covers along dimension N (a view, chainable)");
  m.def(
      "tiles",
      [](int64_t extent, std::vector<int64_t> b, const py::function& body) {
        if (b.size() != 4) throw std::invalid_argument("tiles: (tile_min, tile_max, num_tiles, drain)");
        A::tiles(extent, compiler::TileBounds{b[0], b[1], b[2], b[3]}, [&body](const A::Tile& t) { body(t); });
      },
      "with A.tiles(extent, ...) as t: the builder's loop of tile steps, body(t) once per step");
}

void bind_script(py::module_& m) {
  bind_values(m);
  bind_handles(m);
  bind_constructs(m);
  bind_tiles(m);
  bind_store_and_immediate(m);
}

}  // namespace axcore::python
