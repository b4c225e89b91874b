"""The parser of a parsed region (guide §4.1-§4.2).

A ``@A.prim_func`` body, a ``with A.script():`` block or an ``@A.macro`` body is read from its
source with :mod:`ast`. Its statements become builder calls: a ``for`` over ``A.grid`` opens a
device loop, ``with A.IFD():`` a unit block, ``out[i] = s.pop()`` a store. Its expressions are
evaluated as Python, at parse time, over the builder's values: a helper called inside runs and
only the expression it returns enters the IR (§4.1). Constructs outside the accepted subset are
refused before anything is built, at the line that holds them.

Every statement tells the builder where it was written (``set_location``), so the contract
errors the C++ builder and lowering raise point at the user's line.
"""

from __future__ import annotations

import ast
import copy
import functools
import linecache
import operator
import threading
from types import CodeType
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .._errors import CompileError, at_user_line
from .._native import script as _s
from . import _constructs as C
from ._values import indices, is_device, value

_local = threading.local()
_UNSET = object()
# The builder's types and calls the parser uses per statement, bound once.
_Value, _Reg, _Acc, _Buffer = _s.Value, _s.Reg, _s.Acc, _s.BufferHandle
_Block, _Loops = C.Block, C.Loops
_Name = ast.Name
_partial = functools.partial

# ---- constructs outside the parsed subset (§4.2) ------------------------------------------------
_REFUSED_STMT = {
    ast.While: ("a while loop", "a device loop: for i in A.serial(n)"),
    ast.Assert: ("assert", "check at build time, outside the parsed region"),
    ast.Try: ("try/except/finally", "handle errors outside the parsed region"),
    ast.Break: ("break", "a loop with the extent you need"),
    ast.Continue: ("continue", "a predicate: A.when(cond) or A.If / A.Then / A.Else (§10)"),
    ast.Raise: ("raise", "raise at build time, outside the parsed region (an op's validate())"),
    ast.Delete: ("del", "let the name go out of use"),
    ast.Global: ("global", "read module globals directly; they are visible inside"),
    ast.Nonlocal: ("nonlocal", "compute the value above the parsed region"),
    ast.Import: ("import", "import at module scope"),
    ast.ImportFrom: ("import", "import at module scope"),
    ast.ClassDef: ("a class definition", "define the class at module scope"),
    ast.Return: ("return", "name the result with A.output(buf)"),
    ast.AsyncFunctionDef: ("an async function", "define it outside the parsed region"),
    ast.AsyncFor: ("async for", "a device loop: for i in A.grid(n)"),
    ast.AsyncWith: ("async with", "with A.Datapath(): ..."),
}
if hasattr(ast, "Match"):
    _REFUSED_STMT[ast.Match] = ("match", "a Python if at build time, or A.If / A.when (§10)")
if hasattr(ast, "TryStar"):
    _REFUSED_STMT[ast.TryStar] = ("try/except*", "handle errors outside the parsed region")

_REFUSED_EXPR = {
    ast.Lambda: ("a lambda", "a build-time helper defined outside the parsed region (§4.1)"),
    ast.ListComp: ("a list comprehension", "compute the list above the parsed region, or a device loop"),
    ast.SetComp: ("a set comprehension", "compute it above the parsed region"),
    ast.DictComp: ("a dict comprehension", "compute it above the parsed region"),
    ast.GeneratorExp: ("a generator expression", "compute it above the parsed region, or a device loop"),
    ast.NamedExpr: ("an assignment expression (:=)", "an assignment statement"),
    ast.Dict: ("a dict literal", "a list literal, or a dict built above the parsed region"),
    ast.Set: ("a set literal", "a list literal"),
    ast.Await: ("await", "nothing: a parsed region is not a coroutine"),
    ast.Yield: ("yield", "nothing: a parsed region is not a generator"),
    ast.YieldFrom: ("yield from", "nothing: a parsed region is not a generator"),
}


def fail_at(file: str, node: ast.AST, message: str, hint: str = "") -> None:
    """Raise a CompileError at ``node`` of ``file``, its traceback ending on that line."""
    raise at_user_line(CompileError(message, hint, file, getattr(node, "lineno", 0),
                                    getattr(node, "col_offset", -1) + 1))


_checked: Dict[int, Sequence[ast.stmt]] = {}


def check_subset(file: str, body: Sequence[ast.stmt], region: str) -> None:
    """Refuse what a parsed region does not accept, before anything is built (§4.2). A body that
    passed once is not walked again (the cached tree of its file does not change)."""
    if _checked.get(id(body)) is body:
        return
    for stmt in body:
        for node in _walk(stmt):
            if isinstance(node, ast.FunctionDef):
                fail_at(file, node,
                        f"a nested function is refused: def {node.name} is inside {region}, and a function "
                        "definition is not part of AxScript's abstractions (§4.1)",
                        f"define {node.name} outside the parsed region: at module scope, beside the method, or "
                        "just above the `with A.script():` line; only the call may sit inside (no decorator "
                        "changes this, @A.macro included)")
            refused = _REFUSED_STMT.get(type(node)) or _REFUSED_EXPR.get(type(node))
            if refused:
                fail_at(file, node, f"{refused[0]} is not accepted in {region}: a parsed region takes the "
                        "A constructs and a subset of Python (§4.2)", refused[1])
            if isinstance(node, (ast.For, ast.While)) and node.orelse:
                fail_at(file, node.orelse[0], f"a for ... else is not accepted in {region} (§4.2)",
                        "write the else part after the loop")
    _checked[id(body)] = body


def _walk(node: ast.AST):
    """ast.walk, but not into a nested def (its own refusal names it)."""
    todo = [node]
    while todo:
        n = todo.pop(0)
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not node:
            continue
        todo.extend(ast.iter_child_nodes(n))


# ---- expression rewriting: and/or, x if c else y, chained comparisons ---------------------------
def _call(name: str, args: List[ast.expr], like: ast.AST) -> ast.Call:
    return ast.copy_location(ast.Call(func=ast.copy_location(ast.Name(id=name, ctx=ast.Load()), like),
                                      args=args, keywords=[]), like)


def _thunk(e: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[])
    return ast.copy_location(ast.Lambda(args=args, body=e), e)


class _Rewrite(ast.NodeTransformer):
    """Device values have no truth value: and / or / not, a conditional expression and a chained
    comparison become calls that build the device form when an operand is a device value and
    keep Python's meaning otherwise."""

    def visit_BoolOp(self, n: ast.BoolOp) -> ast.AST:
        self.generic_visit(n)
        name = "__ax_and" if isinstance(n.op, ast.And) else "__ax_or"
        out = n.values[0]
        for v in n.values[1:]:
            out = _call(name, [out, _thunk(v)], n)
        return out

    def visit_UnaryOp(self, n: ast.UnaryOp) -> ast.AST:
        self.generic_visit(n)
        if isinstance(n.op, ast.Not):
            return _call("__ax_not", [n.operand], n)
        return n

    def visit_IfExp(self, n: ast.IfExp) -> ast.AST:
        self.generic_visit(n)
        return _call("__ax_ifexp", [n.test, _thunk(n.body), _thunk(n.orelse)], n)

    def visit_Compare(self, n: ast.Compare) -> ast.AST:
        self.generic_visit(n)
        if len(n.ops) == 1:
            return n
        parts, left = [], n.left
        for op, right in zip(n.ops, n.comparators):
            parts.append(ast.copy_location(ast.Compare(left=left, ops=[op], comparators=[right]), n))
            left = right
        out = parts[0]
        for p in parts[1:]:
            out = _call("__ax_and", [out, _thunk(p)], n)
        return out


def _ax_and(a: Any, b: Callable[[], Any]) -> Any:
    if is_device(a):
        return value(a) & value(b())
    if not a:
        return a
    r = b()
    return r


def _ax_or(a: Any, b: Callable[[], Any]) -> Any:
    if is_device(a):
        _s.fail("`or` of device conditions is not supported", "A.if_then_else, or split into two predicates")
    return a if a else b()


def _ax_not(a: Any) -> Any:
    if is_device(a):
        _s.fail("`not` of a device condition is not supported", "write the opposite comparison")
    return not a


def _ax_ifexp(c: Any, a: Callable[[], Any], b: Callable[[], Any]) -> Any:
    if is_device(c):
        return _s.if_then_else(value(c), value(a()), value(b()))
    return a() if c else b()


HELPERS = {"__ax_and": _ax_and, "__ax_or": _ax_or, "__ax_not": _ax_not, "__ax_ifexp": _ax_ifexp}

_REWRITTEN = (ast.BoolOp, ast.IfExp, ast.UnaryOp, ast.Compare)


def _needs_rewrite(node: ast.expr) -> bool:
    for n in ast.walk(node):
        if isinstance(n, _REWRITTEN) and (not isinstance(n, ast.UnaryOp) or isinstance(n.op, ast.Not)) and (
                not isinstance(n, ast.Compare) or len(n.ops) > 1):
            return True
    return False


# ---- expressions, compiled once ---------------------------------------------------------------------
# An expression of a cached tree is compiled the first time it is evaluated and its code object kept
# on the node (``_ax_code``; the file's tree is cached, so the node lives on): a rebuild of the same
# source evaluates code objects only. The tree's structure is never changed: an expression with
# and / or / not / a conditional / a chained comparison is rewritten on a copy of its own.
def code_of(file: str, node: ast.expr) -> CodeType:
    """The code object of expression ``node`` of ``file`` (compiled on first use)."""
    code = getattr(node, "_ax_code", None)
    if code is not None:
        return code
    if _needs_rewrite(node):
        body = _Rewrite().visit(copy.deepcopy(node))
        tree = ast.fix_missing_locations(ast.Expression(body=body))
    else:
        tree = ast.Expression(body=node)
    code = compile(tree, file, "eval")
    node._ax_code = code  # type: ignore[attr-defined]
    return code


def store_code_of(file: str, st: ast.Assign) -> CodeType:
    """The code object of the store statement ``st`` (``target[key] = value``: value, then target
    and key, as Python evaluates it), compiled on first use and kept on the node like code_of's."""
    node: ast.stmt = st
    if _needs_rewrite(st):
        node = ast.fix_missing_locations(_Rewrite().visit(copy.deepcopy(st)))
    code = compile(ast.Module(body=[node], type_ignores=[]), file, "exec")
    st._ax_code = code  # type: ignore[attr-defined]
    return code


def names_read(node: ast.AST) -> Dict[str, ast.Name]:
    """The names ``node`` reads (first occurrence of each, in ast.walk order), once per node."""
    out = getattr(node, "_ax_reads", None)
    if out is not None:
        return out
    out = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in out:
            out[n.id] = n
    node._ax_reads = out  # type: ignore[attr-defined]
    return out


# ---- where the builder records a statement ---------------------------------------------------------
set_location = _s.set_location  # (file, line, column): where the statement being built was written
set_line = _s.set_line  # (line, column) in the file of the last set_location (the region's)
clear_location = _s.clear_location


# ---- source -------------------------------------------------------------------------------------
_trees: Dict[Tuple[str, str], ast.Module] = {}


def file_tree(file: str) -> Optional[ast.Module]:
    """The parsed source of ``file``, or None when it has no source. Cached by file and text, so a
    file edited and run again in the same process is parsed again (callers ask once per function
    definition, not per build)."""
    linecache.checkcache(file)
    lines = linecache.getlines(file)
    if not lines:
        return None
    key = (file, "".join(lines))
    tree = _trees.get(key)
    if tree is None:
        tree = _trees[key] = ast.parse(key[1], file)
    return tree


# ---- the parser -----------------------------------------------------------------------------------
_UNITS = {"IFD", "MatMul", "DPU", "ODR", "init"}
_UNIT_CALLS = {k: getattr(_s, k) for k in _UNITS}
_open_loop, _close_loop = _s.open_loop, _s.close_loop


class Parser:
    """Builds the statements of one parsed region into the builder's current container.

    Parameters
    ----------
    file : str
        The source file (locations and errors point into it).
    namespace : dict
        What the region sees: the module globals, the closure or the enclosing function's locals,
        the parameters.
    region : str
        How errors name the region ("the body of prim_func main").
    names : set, optional
        Buffer names taken in the function (a name hint that is taken gets a suffix).
    own : bool
        ``namespace`` is the caller's fresh dict: the parser uses it rather than a copy.
    """

    def __init__(self, file: str, namespace: Dict[str, Any], region: str, names: Optional[set] = None,
                 own: bool = False) -> None:
        self.file = file
        self.ns = namespace if own else dict(namespace)
        self.ns.update(HELPERS)
        self.region = region
        self.units: List[str] = []
        self.lets: Dict[str, int] = {}
        self.names = names if names is not None else set()
        self._hint = ""

    # -- plumbing --
    def at(self, node: ast.AST) -> None:
        set_line(node.lineno, node.col_offset + 1)

    def fail(self, node: ast.AST, message: str, hint: str = "") -> None:
        fail_at(self.file, node, message, hint)

    def eval(self, node: ast.expr) -> Any:
        code = getattr(node, "_ax_code", None)
        return eval(code if code is not None else code_of(self.file, node), self.ns)

    def run(self, body: Sequence[ast.stmt]) -> None:
        """Build ``body`` (the caller opened the builder's context). This parser is the thread's
        (``current()``) meanwhile and the location's file is its file; after, the previous
        parser and, in a nested region, the location of the statement that opened it are restored
        (the extension's, ``_s.run_region``)."""
        _run_region(self, body)

    def block(self, body: Sequence[ast.stmt]) -> None:
        """Build the statements of ``body``. The loop is the extension's (``_s.run_block``,
        bind_parser.cpp): per statement it sets the line, resets the name hint, checks the
        LetStmt names (check_lets) and calls the handler (``s_<Type>``). The common statements it
        builds as their handler would: an expression statement, ``name = value`` (through
        assign_name), ``target[key] = value`` (its compiled code), a ``with`` of a unit block or
        A.Datapath, a ``for`` over a device loop; what else it evaluated goes on to
        with_evaluated / for_evaluated."""
        _run_block(self, body)

    def refuse(self, st: ast.stmt) -> None:
        """A statement no handler takes."""
        self.fail(st, f"{type(st).__name__} is not accepted in {self.region} (§4.2)")

    def name_hint(self) -> str:
        """The name the statement being built assigns to (``out = A.alloc_buffer(...)`` names the
        buffer "out"), once, made unique among the function's names ("out_2"); "" when there is
        none (the extension's, bind_parser.cpp)."""
        return _s.parser_name_hint(self)

    # -- statements --
    def stmt(self, st: ast.stmt) -> None:
        """Build one statement (block() does it for each of a body)."""
        self.block((st,))

    def check_lets(self, st: ast.stmt) -> None:
        if not self.lets:
            return
        for name, node in names_read(st).items():
            if name in self.lets:
                self.fail(node,
                          f"Failed to parse TIR statement {ast.unparse(st).splitlines()[0]}: T.LetStmt({node.id}, ...) "
                          f"— {node.id} is a Python name bound to a device value at line {self.lets[node.id]} and "
                          "read by a later statement; a value that crosses a statement boundary must be a declared "
                          "register (§5.2, §14)",
                          f"{node.id} = A.var(\"float18x64\") before assigning it (or A.array), or build the value "
                          "inside the statement that uses it")

    def s_Expr(self, st: ast.Expr) -> None:
        if isinstance(st.value, ast.Constant):
            return  # a docstring or a bare constant
        self.eval(st.value)

    def s_Pass(self, st: ast.Pass) -> None:
        pass

    def s_Assign(self, st: ast.Assign) -> None:
        targets = st.targets
        if len(targets) == 1:
            t = type(targets[0])
            if t is _Name:
                self._hint = targets[0].id
                self.assign_name(targets[0], self.eval(st.value), st.value, False)
                return
            if t is ast.Subscript:  # `buf[i, j] = v`: Python's own store, one code object for the statement
                code = getattr(st, "_ax_code", None)
                eval(code if code is not None else store_code_of(self.file, st), self.ns)
                return
        v = self.eval(st.value)
        for t in targets:
            self.assign(t, v, st.value)

    def s_AnnAssign(self, st: ast.AnnAssign) -> None:
        if st.value is None:
            return
        if isinstance(st.target, ast.Name):
            self._hint = st.target.id
        self.assign(st.target, self.eval(st.value), st.value)

    def assign(self, target: ast.expr, v: Any, rhs: ast.expr, loop_var: bool = False) -> None:
        """Bind ``target`` to ``v``. A loop's variables (``loop_var``) are names of the loop, not
        intermediate values: they never become a LetStmt."""
        if type(target) is _Name:
            self.assign_name(target, v, rhs, loop_var)
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value)
            key = self.eval(target.slice)
            obj[key] = v  # the builder's handle (a buffer, a register file, the accumulator: refused) or a Python container
        elif isinstance(target, ast.Attribute):
            setattr(self.eval(target.value), target.attr, v)
        elif isinstance(target, (ast.Tuple, ast.List)):
            try:
                items = list(v)
            except TypeError:
                self.fail(target, f"cannot unpack a {type(v).__name__}")
            if len(items) != len(target.elts):
                self.fail(target, f"cannot unpack {len(items)} values into {len(target.elts)} names")
            for t, x in zip(target.elts, items):
                self.assign(t, x, rhs, loop_var)
        else:
            self.fail(target, f"cannot assign to {type(target).__name__} in {self.region}")

    def assign_name(self, target: ast.Name, v: Any, rhs: ast.expr, loop_var: bool) -> None:
        """``name = v`` (assign's case of a plain name)."""
        name = target.id
        cur = self.ns.get(name)
        if type(cur) is _Reg and not (isinstance(v, (_Reg, _Acc)) and
                                      _is_call_to(rhs, ("var", "array", "mvm_accumulator"))):
            cur.write(value(v))  # an A.var is assigned directly (§5.2)
            return
        if v is None:
            self.fail(target, f"{name} is bound to Python None in {self.region}: the parser reads both arms "
                      "of an if, so a None name fails even in a branch that cannot run (§14)",
                      "bind it unconditionally to a real buffer: zeros = A.alloc_constant([0.0] * 64, "
                      "\"float32x64\", scope=out.scope()); bias = self.bias if self.bias is not None else zeros")
        if type(v) is _Value and self.units and not loop_var:
            unit = self.units[-1]
            if unit == "IFD":
                self.fail(target, "Expected a single StreamPush",
                          f"no intermediate assignment in an IFD block: {name} becomes a LetStmt; build the "
                          "expression in a Python helper and push it directly: s.push(buf[_addr(i, j)]) (§8.3)")
            self.lets[name] = target.lineno
            self.ns.pop(name, None)
            return
        if self.lets:
            self.lets.pop(name, None)
        self.ns[name] = v

    def s_AugAssign(self, st: ast.AugAssign) -> None:
        rhs = self.eval(st.value)
        t = st.target
        if isinstance(t, ast.Name):
            if t.id in self.lets:
                self.check_lets(ast.copy_location(ast.Expr(value=ast.copy_location(ast.Name(id=t.id, ctx=ast.Load()),
                                                                                     t)), t))
            cur = self.ns.get(t.id)
            if isinstance(cur, _s.Acc):
                if not isinstance(st.op, ast.Add):
                    self.fail(st, "the MVM accumulator only accumulates: acc += A.mvm_1x1(...)")
                cur.iadd(value(rhs))
                return
            if t.id not in self.ns:
                self.fail(t, f"{t.id} is not defined")
            self.assign(t, _binop(st.op, cur, rhs), st.value)
        elif isinstance(t, ast.Subscript):
            obj, key = self.eval(t.value), self.eval(t.slice)
            obj[key] = _binop(st.op, obj[key], rhs)
        elif isinstance(t, ast.Attribute):
            obj = self.eval(t.value)
            setattr(obj, t.attr, _binop(st.op, getattr(obj, t.attr), rhs))
        else:
            self.fail(t, f"cannot assign to {type(t).__name__}")

    def s_If(self, st: ast.If) -> None:
        test = self.eval(st.test)
        if is_device(test):
            other = (lambda: self.block(st.orelse)) if st.orelse else None
            _s.If(value(test), lambda: self.block(st.body), other)
            return
        taken, untaken = (st.body, st.orelse) if test else (st.orelse, st.body)
        self.check_none(untaken)
        self.block(taken)

    def check_none(self, body: Sequence[ast.stmt]) -> None:
        """Both arms of an if are parsed (§4.2): a name bound to None fails in the arm that
        cannot run as well."""
        for st in body:
            for name, node in names_read(st).items():
                if name in self.ns and self.ns[name] is None:
                    self.fail(node, f"{node.id} is bound to Python None, and the parser reads both arms of an if: "
                              "it fails here even though this branch cannot run (§4.2, §14)",
                              "bind it unconditionally to a real buffer (a zero-filled A.alloc_constant)")

    def s_For(self, st: ast.For) -> None:
        self.for_evaluated(st, self.eval(st.iter))

    def for_evaluated(self, st: ast.For, it: Any) -> None:
        """A ``for`` whose iterable ``it`` is evaluated."""
        if type(it) is range:
            if it.step != 1:
                self.fail(st.iter, "a device range() takes step 1", "A.serial(start, stop)")
            it = _Loops("serial", [it.start], [max(0, it.stop - it.start)])
        if type(it) is _Loops:
            set_line(st.lineno, st.col_offset + 1)
            kind, opened = it.kind, 0
            try:
                if len(it.extents) == 1:
                    v = _open_loop(kind, it.starts[0], it.extents[0], None)
                    opened = 1
                    bound: Any = (v,) if it.always_tuple else v
                else:
                    vars_ = []
                    for s0, e in zip(it.starts, it.extents):
                        vars_.append(_open_loop(kind, s0, e, None))
                        opened += 1
                    bound = tuple(vars_)
                self.assign(st.target, bound, st.iter, loop_var=True)
                self.block(st.body)
            finally:
                for _ in range(opened):
                    _close_loop()
            return
        if isinstance(it, (list, tuple)):
            for x in it:  # a build-time sequence: unrolled at parse time
                self.assign(st.target, x, st.iter)
                self.block(st.body)
            return
        self.fail(st.iter, f"a for in {self.region} iterates a device loop (A.grid, A.serial, A.unroll, range), "
                  f"not a {type(it).__name__}")

    def s_With(self, st: ast.With) -> None:
        self.with_items(st, 0, st.body)

    def with_evaluated(self, st: ast.With, ctx: Any) -> None:
        """A ``with`` whose first item evaluated to ``ctx``."""
        self.with_items(st, 0, st.body, ctx)

    def with_items(self, st: ast.With, k: int, body: Sequence[ast.stmt], ctx: Any = _UNSET) -> None:
        """Open ``st.items[k]`` (``ctx`` when it is evaluated already), and inside it the items
        after it, then build ``body``."""
        items = st.items
        item = items[k]
        if k:
            self.at(item.context_expr)  # the first item is on the statement's line, already set
        if ctx is _UNSET:
            ctx = self.eval(item.context_expr)
        if k + 1 < len(items):
            inner = _partial(self.with_items, st, k + 1, body)
        else:
            inner = _partial(self.block, body)
        if type(ctx) is not _Block:
            self.fail(item.context_expr, f"with {ast.unparse(item.context_expr)}: not a block of the language",
                      "A.Datapath, A.IFD, A.pseudo.MatMul, A.DPU, A.ODR, A.init, A.pseudo.LoadIMC, A.CoreDMA, "
                      "A.SysDMA, A.AICore, A.If/Then/Else, A.when, A.tiles, A.script")
        kind, a = ctx.kind, ctx.args  # (k stays the item's index)
        if item.optional_vars is not None and kind != "tiles":
            self.assign(item.optional_vars, ctx, item.context_expr)
        unit = _UNIT_CALLS.get(kind)
        if unit is not None:
            units = self.units
            units.append(kind)
            try:
                if kind == "IFD":
                    unit(a["num"], inner)
                else:
                    unit(inner)
            finally:
                units.pop()
        elif kind == "Datapath":
            _s.Datapath(a["kind"], a["core"], a["id"], inner)
        elif kind == "LoadIMC":
            _s.LoadIMC(inner)
        elif kind == "CoreDMA":
            _s.CoreDMA(a["core"], a["id"], inner)
        elif kind == "SysDMA":
            _s.SysDMA(a["id"], inner)
        elif kind == "AICore":
            _s.AICore(a["core"], inner)
        elif kind == "when":
            _s.when(value(a["cond"]), inner)
        elif kind == "If":
            self.if_block(st, a["cond"], items[k + 1:], body)
        elif kind in ("Then", "Else"):
            self.fail(item.context_expr, f"with A.{kind}() belongs directly inside with A.If(cond):")
        elif kind == "tiles" and not _one_datapath(body):
            # Around operator calls, nested tile loops or several datapaths: the loop of tile steps
            # the builder unrolls (§9.3), the `as` name the step's tile handle (§11.2, §12).
            def step(t: Any) -> None:
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, t, item.context_expr)
                inner()
            _s.tiles(a["extent"], list(a["bounds"]), step)
        elif kind == "tiles":  # around one datapath: the tiling pass's loop, the name the element index
            b = a["bounds"]
            v = _s.open_loop("serial", 0, a["extent"], [b[0], b[1], b[2], b[3]])
            try:
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, v, item.context_expr, loop_var=True)
                inner()
            finally:
                _s.close_loop()
        elif kind == "fuse":
            _s.fuse(a["unsafe"], a["strict"], a["reg"], a["loops"], inner)
        elif kind == "prevent_fuse":
            _s.prevent_fuse(inner)
        elif kind == "script":
            inner()  # a nested script region
        else:  # pragma: no cover - every Block kind is handled above
            self.fail(item.context_expr, f"with A.{kind}: not handled")

    def if_block(self, st: ast.With, cond: Any, rest: List[ast.withitem], body: Sequence[ast.stmt]) -> None:
        if rest:
            self.fail(st, "with A.If(cond): takes a single item", "with A.If(c): with A.Then(): ...")
        then_body: Optional[Sequence[ast.stmt]] = None
        else_body: Optional[Sequence[ast.stmt]] = None
        for inner in body:
            ctx = None
            if isinstance(inner, ast.With) and len(inner.items) == 1:
                self.at(inner)
                ctx = self.eval(inner.items[0].context_expr)
            if not isinstance(ctx, C.Block) or ctx.kind not in ("Then", "Else"):
                self.fail(inner, "inside with A.If(cond): only with A.Then(): and with A.Else(): blocks",
                          "with A.If(c):\n    with A.Then(): ...\n    with A.Else(): ...")
            if ctx.kind == "Then":
                then_body = inner.body
            else:
                else_body = inner.body
        if then_body is None:
            self.fail(st, "with A.If(cond): needs a with A.Then(): block")
        tb, eb = then_body, else_body
        self.at(st)
        _s.If(value(cond), lambda: self.block(tb), (lambda: self.block(eb)) if eb is not None else None)


def _one_datapath(body: Sequence[ast.stmt]) -> bool:
    """Whether a tile loop's body is one ``with A.Datapath(...):`` (the loop the tiling pass splits,
    §11.1) rather than operator calls or several datapaths (unrolled at build time, §9.3)."""
    if len(body) != 1 or not isinstance(body[0], ast.With) or len(body[0].items) != 1:
        return False
    e = body[0].items[0].context_expr
    return _is_call_to(e, ("Datapath",))


def _is_call_to(node: ast.expr, names: Sequence[str]) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Attribute) and f.attr in names) or (isinstance(f, ast.Name) and f.id in names)


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod, ast.Div: operator.truediv, ast.BitAnd: operator.and_}


def _binop(op: ast.operator, a: Any, b: Any) -> Any:
    fn = _BINOPS.get(type(op))
    if fn is None:
        _s.fail(f"the operator {type(op).__name__} is not accepted here (§4.2)")
    if isinstance(a, _s.Reg):
        a = value(a)
    return fn(a, b)


# The statement handlers by node type (Parser.s_<Type>).
_HANDLERS: Dict[type, Callable[[Parser, Any], None]] = {
    getattr(ast, name[2:]): fn for name, fn in vars(Parser).items() if name.startswith("s_") and hasattr(ast, name[2:])}


_s.parser_hooks(_HANDLERS, {"With": ast.With, "For": ast.For, "Expr": ast.Expr, "Assign": ast.Assign,
                            "Constant": ast.Constant, "Name": ast.Name, "Subscript": ast.Subscript, "Block": C.Block,
                            "Loops": C.Loops, "Reg": _s.Reg, "Value": _s.Value, "local": _local})
_run_block, _run_region = _s.run_block, _s.run_region


def current() -> Optional[Parser]:
    """The parser building right now on this thread (None outside a parsed region)."""
    return getattr(_local, "parser", None)


# The name hint of the statement being built on this thread ("" outside a parsed region), once:
# Parser.name_hint of the parser whose statement loop runs (bind_parser.cpp).
name_hint = _s.name_hint


def indices_of(key: Any) -> List[Any]:
    return indices(key)
