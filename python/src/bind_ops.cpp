// The operator library (axcore/compiler/ops/op.hpp) for Python: the registry, calls by name with
// Python arguments, and operators authored in Python (ScriptOp): an OpDef whose validate /
// infer_output / implementation call back into Python, and whose reference is a graph node
// "py:<name>" the Python runtime runs through the op's NumPy emulate.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <axcore/compiler/ops/op.hpp>
#include <memory>

#include "bindings.hpp"

namespace py = pybind11;

namespace axcore::python {
namespace {

namespace A = compiler::A;
namespace ops = compiler::ops;
using compiler::SourceLoc;

SourceLoc here() {
  const SourceLoc* l = compiler::front_end_location();
  return l ? *l : SourceLoc{};
}

std::string py_type(const py::handle& h) { return py::str(py::type::handle_of(h).attr("__name__")); }

ops::ArgValue to_arg(const py::handle& h, const std::string& what) {
  if (h.is_none()) return std::monostate{};
  if (is<A::BufferHandle>(h)) return h.cast<A::BufferHandle>();
  if (py::isinstance<py::bool_>(h)) return h.cast<bool>();
  if (py::isinstance<py::int_>(h)) return h.cast<int64_t>();
  if (py::isinstance<py::float_>(h)) return h.cast<double>();
  if (py::isinstance<py::str>(h)) return h.cast<std::string>();
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
    bool tensors = seq.size() > 0, ints = true;
    for (const auto& x : seq) {
      tensors = tensors && is<A::BufferHandle>(x);
      ints = ints && py::isinstance<py::int_>(x) && !py::isinstance<py::bool_>(x);
    }
    if (tensors) return seq.cast<std::vector<A::BufferHandle>>();
    if (ints) return seq.cast<std::vector<int64_t>>();
  }
  if (is<A::Value>(h) && what.size() >= 7 && what.compare(what.size() - 7, 7, "'where'") == 0)
    compiler::fail(here(),
                   what +
                       ": a device-time predicate; where= gates the call at build time and this one is known only "
                       "at device time (a device loop variable or data)",
                   "derive it from build-time values: inside with A.tiles(..., drain=N) as t, t.is_load / "
                   "t.is_compute / t.is_store (or t.step), or a build-time loop over a tuple: where=(step == 0)");
  if (is<A::Value>(h))
    compiler::fail(
        here(),
        what +
            ": a device value (a buffer element or region, or an expression of a device loop variable or of "
            "data) is not an operator argument (a call takes build-time values)",
        "an operand is a whole buffer (a region x[a:b] is none); where= takes a build-time condition: compute it "
        "from Python values (a build-time loop over a tuple, for step in (0, 1, 2):), e.g. where=(step == 0)");
  if (py::hasattr(h, "__index__")) {
    try {
      return py::int_(py::reinterpret_borrow<py::object>(h)).cast<int64_t>();
    } catch (const py::error_already_set&) {
      // a device value: refused below like any other type
    }
  }
  compiler::fail(
      here(), what + ": a " + py_type(h) + " is not an operator argument",
      "a buffer, a list of buffers, an int, a float, a list of ints, a string or a bool (build-time values)");
}

py::object from_arg(const ops::ArgValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return py::none();
        else
          return py::cast(x);
      },
      v);
}

std::string kind_name(ops::ArgKind k) { return ops::to_string(k); }

ops::ArgKind parse_kind(const std::string& s) {
  for (auto k : {ops::ArgKind::Tensor, ops::ArgKind::Tensors, ops::ArgKind::Int, ops::ArgKind::Float,
                 ops::ArgKind::Ints, ops::ArgKind::String, ops::ArgKind::Bool})
    if (ops::to_string(k) == s) return k;
  throw std::invalid_argument("unknown argument kind '" + s + "'");
}

// An operator authored in Python. The callbacks get the bound call's arguments as a dict.
struct PyOp {
  ops::OpDef def;
};

// An argument as the operator library takes it: an Enum by its value.
py::object plain(py::handle v) {
  static const py::handle enum_type = py::object(py::module_::import("enum").attr("Enum")).release();
  if (PyObject_IsInstance(v.ptr(), enum_type.ptr()) == 1) return v.attr("value");
  return py::reinterpret_borrow<py::object>(v);
}

// output=BufferInfo(shape, dtype, scope) (the guide's Arg(... | BufferInfo, is_output=True)): a
// buffer allocated from it, named after the statement's variable.
ops::ArgValue output_arg(const py::handle& v, const std::string& what) {
  if (!v.is_none() && !is<A::BufferHandle>(v) && py::hasattr(v, "shape") && py::hasattr(v, "dtype") &&
      py::hasattr(v, "scope") && !py::hasattr(v, "__call__")) {
    const py::object sc = v.attr("scope");
    const std::string scope = py::str(py::hasattr(sc, "value") ? sc.attr("value") : sc);
    auto parsed = compiler::parse_scope(scope);
    if (!parsed) compiler::fail(here(), what + ": BufferInfo scope '" + scope + "' is not a buffer scope");
    const std::string n = name_hint();
    return A::alloc_buffer(v.attr("shape").cast<std::vector<int64_t>>(), v.attr("dtype").cast<std::string>(), *parsed,
                           n.empty() ? std::string() : n);
  }
  return to_arg(plain(v), what);
}

// `dpu_cast(x, core=0)` in a parsed region: the operator library binds the call (positional
// arguments in declaration order, keyword-only ones by name, output=, the call keywords id=,
// core=, where=), the output named after the statement's variable.
ops::Tensor call_py_op(const PyOp& p, const py::args& pargs, const py::kwargs& kwargs) {
  const std::string op = "axol." + p.def.name;
  if (!in_parsed_region())
    compiler::fail(here(), op + "(...) is called outside a parsed region",
                   "call it in an @A.prim_func body or a with A.script(): block");
  std::vector<ops::ArgValue> pos;
  std::size_t k = 0;
  for (const auto& a : p.def.args) {
    if (a.kw_only || k >= pargs.size()) continue;
    const std::string what = p.def.name + ": argument '" + a.name + "'";
    pos.push_back(a.is_output ? output_arg(pargs[k], what) : to_arg(plain(pargs[k]), what));
    ++k;
  }
  for (; k < pargs.size(); ++k)
    pos.push_back(to_arg(plain(pargs[k]), p.def.name + ": argument " + std::to_string(k + 1)));
  std::map<std::string, ops::ArgValue> named;
  for (const auto& [key, v] : kwargs) {
    const std::string n = py::str(key);
    bool out = false;
    for (const auto& a : p.def.args) out = out || (a.is_output && a.name == n);
    named[n] = out ? output_arg(v, p.def.name + ": argument '" + n + "'")
                   : to_arg(plain(v), p.def.name + ": argument '" + n + "'");
  }
  return ops::invoke_at(p.def, pos, named, name_hint(), here());
}

// fn(args...) by vectorcall (pybind11's call builds an argument tuple).
template <class... Args>
py::object call(const py::function& fn, const Args&... args) {
  PyObject* argv[] = {py::handle(args).ptr()...};
  PyObject* r = PyObject_Vectorcall(fn.ptr(), argv, sizeof...(Args), nullptr);
  if (!r) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

py::dict call_args(const ops::Call& c) {
  py::dict d;
  for (const auto& [k, v] : c.args()) d[py::str(k)] = from_arg(v);
  return d;
}

std::shared_ptr<PyOp> make_py_op(const std::string& name, const std::string& level, const std::string& doc,
                                 const std::vector<py::tuple>& args, py::function validate, py::function infer_output,
                                 py::function implementation) {
  auto op = std::make_shared<PyOp>();
  ops::OpDef& d = op->def;
  d.name = name;
  d.level = level == "core" ? ops::Level::Core : level == "aten" ? ops::Level::Aten : ops::Level::Atomic;
  d.doc = doc;
  for (const auto& t : args) {
    ops::ArgSpec a;
    a.name = t[0].cast<std::string>();
    a.kind = parse_kind(t[1].cast<std::string>());
    a.required = t[2].cast<bool>();
    a.def = to_arg(t[3], name + ": default of '" + a.name + "'");
    a.doc = t[4].cast<std::string>();
    a.kw_only = t[5].cast<bool>();
    a.is_output = t[6].cast<bool>();
    d.args.push_back(std::move(a));
  }
  d.check_given_output = false;  // a given output is taken as it is (the guide's ScriptOp)
  // The call's arguments as one dict for the three callbacks of a call (validate, always first,
  // makes it; implementation, last, drops it), so the Python side binds one instance per call.
  struct Args {
    const ops::Call* call = nullptr;
    py::object dict;
    py::object of(const ops::Call& c) { return call == &c ? dict : py::object(call_args(c)); }
    void drop() {
      call = nullptr;
      dict = py::object();
    }
  };
  auto args_of = std::make_shared<Args>();
  d.validate = [validate, args_of](const ops::Call& c) {
    args_of->drop();
    args_of->dict = call_args(c);
    args_of->call = &c;
    try {
      call(validate, args_of->dict);
    } catch (...) {
      args_of->drop();
      throw;
    }
  };
  d.infer_output = [infer_output, name, args_of](const ops::Call& c) {
    py::tuple r;
    try {
      r = call(infer_output, args_of->of(c));
    } catch (...) {
      args_of->drop();
      throw;
    }
    ops::BufferInfo info;
    info.shape = r[0].cast<std::vector<int64_t>>();
    info.dtype = r[1].cast<std::string>();
    auto sc = compiler::parse_scope(r[2].cast<std::string>());
    if (!sc) compiler::fail(c.loc(), name + ": infer_outputs returned the unknown scope " + r[2].cast<std::string>());
    info.scope = *sc;
    return info;
  };
  d.implementation = [implementation, args_of](const ops::Call& c, const ops::Tensor& out) {
    const py::object a = args_of->of(c);
    args_of->drop();
    call(implementation, a, py::cast(out));
  };
  // The reference: one node the Python runtime runs through the class's emulate(). Inputs are the
  // tensor arguments in declaration order, the scalars ride as attributes.
  d.emulate = [](const ops::Call& c, const ops::Tensor& out) {
    compiler::PrimFunc::GraphNode n;
    n.op = "py:" + c.op().name;
    std::string tensor_args;
    for (const auto& a : c.op().args) {
      if (a.is_output) continue;
      const auto& v = c.args().at(a.name);
      if (const auto* t = std::get_if<ops::Tensor>(&v)) {
        n.inputs.push_back(t->name());
        tensor_args += (tensor_args.empty() ? "" : ",") + a.name;
      } else if (const auto* i = std::get_if<int64_t>(&v)) {
        n.num_attrs[a.name] = {static_cast<double>(*i)};
      } else if (const auto* f = std::get_if<double>(&v)) {
        n.num_attrs[a.name] = {*f};
      } else if (const auto* b = std::get_if<bool>(&v)) {
        n.num_attrs[a.name] = {*b ? 1.0 : 0.0};
      } else if (const auto* is = std::get_if<std::vector<int64_t>>(&v)) {
        n.num_attrs[a.name] = std::vector<double>(is->begin(), is->end());
      } else if (const auto* s = std::get_if<std::string>(&v)) {
        n.str_attrs[a.name] = *s;
      }
    }
    n.str_attrs["py.tensor_args"] = tensor_args;
    n.str_attrs["py.out_dtype"] = out.dtype();
    n.num_attrs["py.out_shape"] = std::vector<double>(out.shape().begin(), out.shape().end());
    n.outputs.push_back(out.name());
    return std::vector<compiler::PrimFunc::GraphNode>{n};
  };
  return op;
}

std::pair<std::vector<ops::ArgValue>, std::map<std::string, ops::ArgValue>> bind_args(const std::string& op,
                                                                                      const py::list& positional,
                                                                                      const py::dict& named) {
  std::vector<ops::ArgValue> pos;
  std::map<std::string, ops::ArgValue> nam;
  for (std::size_t k = 0; k < positional.size(); ++k)
    pos.push_back(to_arg(positional[k], op + ": argument " + std::to_string(k + 1)));
  for (const auto& [k, v] : named) {
    const std::string key = py::str(k);
    nam[key] = to_arg(v, op + ": argument '" + key + "'");
  }
  return {std::move(pos), std::move(nam)};
}

}  // namespace

void bind_ops(py::module_& m) {
  m.def("registry", [] {
    py::list out;
    for (const auto& op : ops::registry()) {
      py::list args;
      for (const auto& a : op.args) args.append(py::make_tuple(a.name, kind_name(a.kind), a.required, a.doc));
      out.append(py::make_tuple(op.name, ops::to_string(op.level), op.doc, args));
    }
    return out;
  });
  m.def("describe", [] { return ops::describe_ops(); });
  m.def("invoke",
        [](const std::string& name, const py::list& positional, const py::dict& named, const std::string& out_name) {
          const ops::OpDef* op = ops::find_op(name);
          if (!op) compiler::fail(here(), "no operator '" + name + "'", "axc ops lists them");
          auto [pos, nam] = bind_args(name, positional, named);
          return ops::invoke_at(*op, pos, nam, out_name, here());
        });
  // dynamic_attr: register_op names the callable (__name__, __qualname__, __doc__).
  py::class_<PyOp, std::shared_ptr<PyOp>>(m, "PyOp", "an operator authored in Python (ScriptOp)", py::dynamic_attr())
      .def(py::init(&make_py_op), py::arg("name"), py::arg("level"), py::arg("doc"), py::arg("args"),
           py::arg("validate"), py::arg("infer_output"), py::arg("implementation"))
      .def("__call__", &call_py_op, "the operator called in a parsed region: dpu_cast(x, core=0)")
      .def_property_readonly("name", [](const PyOp& p) { return p.def.name; })
      .def("invoke", [](const PyOp& p, const py::list& positional, const py::dict& named, const std::string& out_name) {
        auto [pos, nam] = bind_args(p.def.name, positional, named);
        return ops::invoke_at(p.def, pos, nam, out_name, here());
      });
}

}  // namespace axcore::python
