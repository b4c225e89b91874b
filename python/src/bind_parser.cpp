// The parser's statement loop (axcore.script._parser.Parser.block) in the extension: for each
// statement, its line, the per-statement resets, then its handler. A `with` of a unit block or
// of A.Datapath and a `for` over a device loop are built here, their bodies by this loop again,
// so such a statement is one builder call instead of a Python handler, a body callback and a
// crossing each. Everything else, and every error, is the Python parser's: what this loop
// evaluates it hands on (Parser.with_evaluated / for_evaluated) instead of evaluating it twice.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every binding file includes it: one type_caster<std::vector> across them

#include <axcore/compiler/diag.hpp>
#include <axcore/compiler/script.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace axcore::python {
namespace {

namespace A = compiler::A;

// What the loop needs of the Python side, given once by _parser.py (parser_hooks).
struct Hooks {
  py::dict handlers;  // ast statement type -> Parser.s_<Type>
  py::handle with_type, for_type, expr_type, assign_type, constant_type, name_type, subscript_type, block_type,
      loops_type, reg_type, value_type;
  py::handle local;  // _parser._local: .parser is the parser building on this thread
};

Hooks& hooks() {
  static Hooks* h = new Hooks();  // lives as long as the interpreter (never destroyed at exit)
  return *h;
}

// Interned attribute names.
struct Names {
  py::str lineno{"lineno"}, col_offset{"col_offset"}, hint{"_hint"}, lets{"lets"}, check_lets{"check_lets"},
      units{"units"}, ns{"ns"}, ax_code{"_ax_code"}, eval{"eval"}, items{"items"}, context_expr{"context_expr"},
      optional_vars{"optional_vars"}, body{"body"}, kind{"kind"}, args{"args"}, num{"num"}, core{"core"}, id{"id"},
      with_evaluated{"with_evaluated"}, for_evaluated{"for_evaluated"}, iter{"iter"}, target{"target"},
      orelse{"orelse"}, assign{"assign"}, starts{"starts"}, extents{"extents"}, always_tuple{"always_tuple"},
      refuse{"refuse"}, value{"value"}, targets{"targets"}, assign_name{"assign_name"}, names{"names"},
      plan{"_ax_plan"}, parser{"parser"}, file{"file"}, empty{""};
};

const Names& names() {
  static Names* n = new Names();
  return *n;
}

void run_block(py::handle parser, py::handle body);

bool is_type(py::handle o, py::handle type) { return Py_TYPE(o.ptr()) == reinterpret_cast<PyTypeObject*>(type.ptr()); }

// The parser whose statements run_block is building (the innermost region on this thread): the
// one whose statement a name hint belongs to (the same as _parser._local.parser while it builds).
thread_local PyObject* current_parser = nullptr;

// Parser.name_hint: the name the statement being built assigns to (`out = A.alloc_buffer(...)`
// names the buffer "out"), once, made unique among the function's names ("out_2"); "" when none.
std::string take_name_hint(py::handle parser) {
  const Names& n = names();
  PyObject* hint = PyObject_GetAttr(parser.ptr(), n.hint.ptr());
  if (!hint) {
    PyErr_Clear();
    return "";
  }
  const py::str h = py::reinterpret_steal<py::str>(hint);
  if (PyUnicode_GET_LENGTH(h.ptr()) == 0) return "";
  if (PyObject_SetAttr(parser.ptr(), n.hint.ptr(), n.empty.ptr()) != 0) throw py::error_already_set();
  const py::object taken = parser.attr(n.names);
  py::str name = h;
  for (int k = 2; PySet_Contains(taken.ptr(), name.ptr()) == 1; ++k)
    name = py::str(h.cast<std::string>() + "_" + std::to_string(k));
  if (PySet_Add(taken.ptr(), name.ptr()) != 0) throw py::error_already_set();
  return name.cast<std::string>();
}

// parser.<name>(args...) by vectorcall: no bound method, no argument tuple (pybind11's call
// makes both, which costs more than the Python handler it would replace).
template <class... Args>
py::object call_method(py::handle parser, const py::str& name, Args... args) {
  PyObject* argv[] = {parser.ptr(), py::handle(args).ptr()...};
  PyObject* r =
      PyObject_VectorcallMethod(name.ptr(), argv, (sizeof...(Args) + 1) | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
  if (!r) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

// Parser.assign_name's common case built here: `name = v` where name is not an A.var register
// (that assignment writes it), v is not None (refused) and v is not an expression inside a unit
// block (a LetStmt: refused in IFD, remembered elsewhere). The rest is the Python method's.
void assign_name(py::handle parser, py::handle target, py::handle v, py::handle rhs, bool loop_var) {
  const Names& n = names();
  const Hooks& h = hooks();
  const py::object name = target.attr(n.id);
  const py::object ns = parser.attr(n.ns);
  PyObject* cur = PyDict_GetItemWithError(ns.ptr(), name.ptr());  // borrowed
  if (!cur && PyErr_Occurred()) throw py::error_already_set();
  bool python = (cur && is_type(cur, h.reg_type)) || v.is_none();
  if (!python && !loop_var && is_type(v, h.value_type)) {
    const py::object units = parser.attr(n.units);
    python = PyList_GET_SIZE(units.ptr()) != 0;
  }
  if (python) {
    call_method(parser, n.assign_name, target, v, rhs, py::handle(loop_var ? Py_True : Py_False));
    return;
  }
  const py::object lets = parser.attr(n.lets);
  if (PyDict_Size(lets.ptr()) != 0 && PyDict_Contains(lets.ptr(), name.ptr()) == 1 &&
      PyDict_DelItem(lets.ptr(), name.ptr()) != 0)
    throw py::error_already_set();
  if (PyDict_SetItem(ns.ptr(), name.ptr(), v.ptr()) != 0) throw py::error_already_set();
}

// An expression of the statement: its compiled code (kept on the node) run in the parser's
// namespace, as Parser.eval does; compiled by Parser.eval the first time.
py::object eval_expr(py::handle parser, py::handle expr) {
  const Names& n = names();
  PyObject* code = PyObject_GetAttr(expr.ptr(), n.ax_code.ptr());
  if (!code) {
    PyErr_Clear();
    return call_method(parser, n.eval, expr);
  }
  const py::object c = py::reinterpret_steal<py::object>(code);
  const py::object ns = parser.attr(n.ns);
  PyObject* r = PyEval_EvalCode(c.ptr(), ns.ptr(), ns.ptr());
  if (!r) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

// The body of a block: this loop over `body`, with the unit pushed on Parser.units meanwhile
// (assignments read it: a LetStmt in an IFD block is refused).
A::Body unit_body(py::handle parser, py::handle body, py::handle unit) {
  return [parser, body, unit] {
    const py::object units = parser.attr(names().units);
    if (PyList_Append(units.ptr(), unit.ptr()) != 0) throw py::error_already_set();
    try {
      run_block(parser, body);
    } catch (...) {
      PyList_SetSlice(units.ptr(), PyList_GET_SIZE(units.ptr()) - 1, PyList_GET_SIZE(units.ptr()), nullptr);
      throw;
    }
    PyList_SetSlice(units.ptr(), PyList_GET_SIZE(units.ptr()) - 1, PyList_GET_SIZE(units.ptr()), nullptr);
  };
}

// `with <one item>:` without `as` (the item's expression ctx_expr, the block's body). False: not
// this loop's (the Python handler builds it, nothing evaluated yet).
bool with_statement(py::handle parser, py::handle st, py::handle ctx_expr, py::handle body) {
  const Names& n = names();
  if (ctx_expr.is_none()) return false;
  const py::object ctx = eval_expr(parser, ctx_expr);
  if (Py_TYPE(ctx.ptr()) != reinterpret_cast<PyTypeObject*>(hooks().block_type.ptr())) {
    call_method(parser, n.with_evaluated, st, ctx);
    return true;
  }
  const py::object kind = ctx.attr(n.kind);
  const std::string k = kind.cast<std::string>();
  if (k == "Datapath") {
    const py::object a = ctx.attr(n.args);
    const py::object dk = a[n.kind];
    A::Datapath(datapath_args(dk.is_none() ? std::nullopt : std::optional<std::string>(dk.cast<std::string>()),
                              a[n.core].cast<int>(), a[n.id].cast<std::string>()),
                [parser, body] { run_block(parser, body); });
  } else if (k == "IFD") {
    const py::object num = ctx.attr(n.args)[n.num];  // None: A.IFD() without num (the stream's pin decides)
    if (num.is_none())
      A::IFD(unit_body(parser, body, kind));
    else
      A::IFD(num.cast<int>(), unit_body(parser, body, kind));
  } else if (k == "DPU") {
    A::DPU(unit_body(parser, body, kind));
  } else if (k == "ODR") {
    A::ODR(unit_body(parser, body, kind));
  } else if (k == "MatMul") {
    A::MatMul(unit_body(parser, body, kind));
  } else if (k == "init") {
    A::init(unit_body(parser, body, kind));
  } else {
    call_method(parser, n.with_evaluated, st, ctx);
  }
  return true;
}

// An expression statement: its value evaluated (None: a docstring or a bare constant, not).
void expr_statement(py::handle parser, py::handle value) {
  if (!value.is_none()) eval_expr(parser, value);
}

// `name = value` (the name is the hint of what the value allocates; Parser.assign_name binds it)
// and `target[key] = value` (the statement's code, compiled by the handler the first time). False:
// the handler's.
// (target: the one target, None when several; rhs: the value; name: the target's name when it is
// a Name.)
bool assign_statement(py::handle parser, py::handle st, py::handle target, py::handle rhs, py::handle name) {
  const Names& n = names();
  if (target.is_none()) return false;
  if (!name.is_none()) {
    if (PyObject_SetAttr(parser.ptr(), n.hint.ptr(), name.ptr()) != 0) throw py::error_already_set();
    assign_name(parser, target, eval_expr(parser, rhs), rhs, false);
    return true;
  }
  if (!is_type(target, hooks().subscript_type)) return false;
  PyObject* code = PyObject_GetAttr(st.ptr(), n.ax_code.ptr());
  if (!code) {
    PyErr_Clear();
    return false;
  }
  const py::object c = py::reinterpret_steal<py::object>(code);
  const py::object ns = parser.attr(n.ns);
  PyObject* r = PyEval_EvalCode(c.ptr(), ns.ptr(), ns.ptr());
  if (!r) throw py::error_already_set();
  Py_DECREF(r);
  return true;
}

// `for target in <device loop>:`; anything else iterated goes on to Parser.for_evaluated.
bool for_statement(py::handle parser, py::handle st, py::handle iter_expr, py::handle target, py::handle body) {
  const Names& n = names();
  const py::object it = eval_expr(parser, iter_expr);
  if (Py_TYPE(it.ptr()) != reinterpret_cast<PyTypeObject*>(hooks().loops_type.ptr())) {
    call_method(parser, n.for_evaluated, st, it);
    return true;
  }
  const auto kind = loop_kind(it.attr(n.kind).cast<std::string>());
  const auto starts = it.attr(n.starts).cast<std::vector<int64_t>>();
  const auto extents = it.attr(n.extents).cast<std::vector<int64_t>>();
  const compiler::SourceLoc loc = statement_location();
  std::size_t opened = 0;
  try {
    py::tuple vars(extents.size());
    for (std::size_t k = 0; k < extents.size(); ++k) {
      vars[k] = py::cast(A::detail::open_loop(kind, starts[k], extents[k], loc, std::nullopt));
      ++opened;
    }
    const bool as_tuple = extents.size() != 1 || it.attr(n.always_tuple).cast<bool>();
    const py::object bound = as_tuple ? py::object(vars) : py::object(vars[0]);
    if (is_type(target, hooks().name_type))
      assign_name(parser, target, bound, iter_expr, true);
    else
      call_method(parser, n.assign, target, bound, iter_expr, py::handle(Py_True));
    run_block(parser, body);
  } catch (...) {
    try {
      for (; opened > 0; --opened) A::detail::close_loop();
    } catch (...) {  // the body's error is the one to report
    }
    throw;
  }
  for (; opened > 0; --opened) A::detail::close_loop();
  return true;
}

// What the loop reads of a statement, read once and kept on the node (`_ax_plan`, it goes with the
// node): (line, column, a, b, c) — a `with` of one item without `as`: (its expression, the body,
// None), otherwise a None; a `for`: (iter, target, body); an expression statement: (the value,
// None for a constant); an assignment of one target: (the target, the value, the target's name or
// None), several: a None.
py::tuple plan_of(py::handle st) {
  const Names& n = names();
  const Hooks& h = hooks();
  PyObject* have = PyObject_GetAttr(st.ptr(), n.plan.ptr());
  if (have) return py::reinterpret_steal<py::tuple>(have);
  PyErr_Clear();
  py::object a = py::none(), b = py::none(), c = py::none();
  if (is_type(st, h.with_type)) {
    const py::object items = st.attr(n.items);
    if (PyList_Check(items.ptr()) != 0 && PyList_GET_SIZE(items.ptr()) == 1) {
      const py::handle item = PyList_GET_ITEM(items.ptr(), 0);
      if (item.attr(n.optional_vars).is_none()) {
        a = item.attr(n.context_expr);
        b = st.attr(n.body);
      }
    }
  } else if (is_type(st, h.for_type)) {
    a = st.attr(n.iter);
    b = st.attr(n.target);
    c = st.attr(n.body);
  } else if (is_type(st, h.expr_type)) {
    const py::object v = st.attr(n.value);
    if (!is_type(v, h.constant_type)) a = v;
  } else if (is_type(st, h.assign_type)) {
    const py::object targets = st.attr(n.targets);
    if (PyList_Check(targets.ptr()) != 0 && PyList_GET_SIZE(targets.ptr()) == 1) {
      a = py::reinterpret_borrow<py::object>(PyList_GET_ITEM(targets.ptr(), 0));
      b = st.attr(n.value);
      if (is_type(a, h.name_type)) c = a.attr(n.id);
    }
  }
  const py::int_ col(st.attr(n.col_offset).cast<uint32_t>() + 1);
  py::tuple plan = py::make_tuple(st.attr(n.lineno), col, a, b, c);
  if (PyObject_SetAttr(st.ptr(), n.plan.ptr(), plan.ptr()) != 0) throw py::error_already_set();
  return plan;
}

void run_block(py::handle parser, py::handle body) {
  const Names& n = names();
  const Hooks& h = hooks();
  struct Current {  // this parser's statements, until the loop ends (or raises)
    PyObject* prev = current_parser;
    explicit Current(py::handle p) { current_parser = p.ptr(); }
    ~Current() { current_parser = prev; }
  } in(parser);
  for (py::handle st : body) {
    const py::tuple plan = plan_of(st);
    const py::handle a = PyTuple_GET_ITEM(plan.ptr(), 2), b = PyTuple_GET_ITEM(plan.ptr(), 3),
                     c = PyTuple_GET_ITEM(plan.ptr(), 4);
    set_statement_line(static_cast<uint32_t>(PyLong_AsUnsignedLong(PyTuple_GET_ITEM(plan.ptr(), 0))),
                       static_cast<uint32_t>(PyLong_AsUnsignedLong(PyTuple_GET_ITEM(plan.ptr(), 1))));
    if (PyObject_SetAttr(parser.ptr(), n.hint.ptr(), n.empty.ptr()) != 0) throw py::error_already_set();
    const py::object lets = parser.attr(n.lets);
    if (PyObject_IsTrue(lets.ptr())) call_method(parser, n.check_lets, st);
    PyTypeObject* tp = Py_TYPE(st.ptr());
    if (tp == reinterpret_cast<PyTypeObject*>(h.with_type.ptr()) && with_statement(parser, st, a, b)) continue;
    if (tp == reinterpret_cast<PyTypeObject*>(h.for_type.ptr()) && for_statement(parser, st, a, b, c)) continue;
    if (tp == reinterpret_cast<PyTypeObject*>(h.expr_type.ptr())) {
      expr_statement(parser, a);
      continue;
    }
    if (tp == reinterpret_cast<PyTypeObject*>(h.assign_type.ptr()) && assign_statement(parser, st, a, b, c)) continue;
    PyObject* handler = PyDict_GetItem(h.handlers.ptr(), reinterpret_cast<PyObject*>(tp));  // borrowed
    if (!handler) {
      call_method(parser, n.refuse, st);
      continue;
    }
    PyObject* argv[] = {parser.ptr(), st.ptr()};
    PyObject* r = PyObject_Vectorcall(handler, argv, 2, nullptr);
    if (!r) throw py::error_already_set();
    Py_DECREF(r);
  }
}

// Parser.run: build `body` as parser's region (the caller opened the builder's context). Meanwhile
// the parser is the thread's (_parser._local.parser) and the region's file is the location's;
// after it the previous parser, and the location of the statement that opened this region when it
// is nested, are restored.
void run_region(py::handle parser, py::handle body) {
  const Names& n = names();
  const py::handle local = hooks().local;
  PyObject* p = PyObject_GetAttr(local.ptr(), n.parser.ptr());
  if (!p) {
    PyErr_Clear();
    p = Py_NewRef(Py_None);
  }
  const py::object prev = py::reinterpret_steal<py::object>(p);
  std::optional<compiler::SourceLoc> outer;
  if (!prev.is_none())
    if (const compiler::SourceLoc* l = compiler::front_end_location()) outer = *l;
  auto restore = [&] {
    if (PyObject_SetAttr(local.ptr(), n.parser.ptr(), prev.ptr()) != 0) throw py::error_already_set();
    if (outer) {
      statement_location() = *outer;
      compiler::set_front_end_location(&statement_location());
    }
  };
  if (PyObject_SetAttr(local.ptr(), n.parser.ptr(), parser.ptr()) != 0) throw py::error_already_set();
  try {
    if (PySequence_Size(body.ptr()) > 0) {  // the region's file; the loop sets each statement's line
      const py::tuple plan = plan_of(py::reinterpret_steal<py::object>(PySequence_GetItem(body.ptr(), 0)));
      statement_location() = compiler::SourceLoc{parser.attr(n.file).cast<std::string>(), plan[0].cast<uint32_t>(),
                                                 plan[1].cast<uint32_t>()};
      compiler::set_front_end_location(&statement_location());
    }
    run_block(parser, body);
  } catch (...) {
    try {
      restore();
    } catch (...) {  // the region's error is the one to report
    }
    throw;
  }
  restore();
}

}  // namespace

std::string name_hint() { return current_parser ? take_name_hint(py::handle(current_parser)) : std::string(); }

bool in_parsed_region() { return current_parser != nullptr; }

void bind_parser(py::module_& m) {
  m.def(
      "parser_hooks",
      [](const py::dict& handlers, const py::dict& types) {
        Hooks& h = hooks();
        h.handlers = handlers;
        using Field = py::handle Hooks::*;
        for (const auto& [field, name] : {std::pair<Field, const char*>{&Hooks::with_type, "With"},
                                          {&Hooks::for_type, "For"},
                                          {&Hooks::expr_type, "Expr"},
                                          {&Hooks::assign_type, "Assign"},
                                          {&Hooks::constant_type, "Constant"},
                                          {&Hooks::name_type, "Name"},
                                          {&Hooks::subscript_type, "Subscript"},
                                          {&Hooks::block_type, "Block"},
                                          {&Hooks::loops_type, "Loops"},
                                          {&Hooks::reg_type, "Reg"},
                                          {&Hooks::value_type, "Value"},
                                          {&Hooks::local, "local"}})
          h.*field = py::handle(types[name]).inc_ref();
      },
      "the statement handlers by ast type, and the types the loop builds itself");
  m.def(
      "parser_name_hint", [](py::handle parser) { return take_name_hint(parser); },
      "Parser.name_hint: the name hint of the statement parser is building, once, unique");
  m.def("name_hint", &name_hint, "the name hint of the statement being built (\"\" outside a parsed region), once");
  m.def(
      "run_region", [](py::handle parser, py::handle body) { run_region(parser, body); },
      "Parser.run: build body as the parser's region");
  m.def(
      "build_function",
      [](A::Func& f, py::handle parser, py::handle body) {
        A::Script s(f);
        run_region(parser, body);
      },
      "a prim_func's body: parser's region built into f (with A.script(): of the builder)");
  m.def(
      "run_block", [](py::handle parser, py::handle body) { run_block(parser, body); },
      "Parser.block: build each statement of body");
}

}  // namespace axcore::python
