"""Read an SGLang source tree with Python's ast module and print its tables.

Usage: python3 extract.py ROOT

ROOT holds python/sglang/. The output is one JSON object on stdout with one
list per table; every row carries "source", the file (relative to ROOT) and
line it came from. Nothing is imported or run from the tree: it is parsed
only, so any SGLang version reads the same way whatever is installed.

Run by the Go package internal/sglangsrc, which owns the output's shape.
"""

import ast
import json
import re
import os
import sys

# Start-up log lines the phase tracker (package health) matches: a log call
# whose format text contains one of these markers is a row of the
# log-format table, with the phase the line marks and whether the phase
# takes the time of the line's last occurrence (a step that ends) or of its
# first (a step that begins). A "Capture " line begins or ends the CUDA
# graph captures by its verb (".. begin." / ".. end.").
LOG_MARKERS = {
    "Load weight begin": ("loading weights", False),
    "Load weight end": ("weights loaded", True),
    "KV Cache is allocated": ("KV cache allocated", True),
    "KV Cache VA upper bound": ("KV cache allocated", True),
    "Post-capture KV sizing: KV cache allocated": ("KV cache allocated", True),
    "Capture ": (None, None),
    "The server is fired up and ready to roll!": ("warm-up done", False),
}
CAPTURE_BEGIN = re.compile(r" begin(\.|$)")
CAPTURE_END = re.compile(r" end(\.|$)")

LOG_CALLS = {"info", "warning", "debug", "error", "critical", "print", "log", "info_once", "warning_once"}
# Functions that log their second argument through the logger given first
# (srt/utils: log_info_on_rank0(logger, msg) logs on rank 0 only).
LOG_HELPERS = {"log_info_on_rank0"}
METRIC_CLASSES = {"Gauge", "Counter", "Histogram", "Summary"}
HTTP_METHODS = {"get", "post", "put", "delete", "patch", "api_route", "head", "options"}


def text(node):
    return ast.unparse(node) if node is not None else ""


def is_os_environ(node):
    """os.environ, or a bare environ imported from os."""
    if isinstance(node, ast.Attribute) and node.attr == "environ":
        return isinstance(node.value, ast.Name) and node.value.id == "os"
    return isinstance(node, ast.Name) and node.id == "environ"


def const_str(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def fmt_text(node, names=None):
    """A string literal or f-string as text, with {expr} for the holes. A
    hole or argument naming a local string (names: name -> value node) is
    filled with that string; for a conditional one, its else branch."""
    names = names or {}
    if isinstance(node, ast.Name) and node.id in names:
        v = names[node.id]
        if isinstance(v, ast.IfExp):
            v = v.orelse
        if isinstance(v, (ast.Constant, ast.JoinedStr)):
            return fmt_text(v)
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                inner = fmt_text(v.value, names) if isinstance(v.value, ast.Name) and v.format_spec is None else None
                out.append(inner if inner is not None else "{" + text(v.value) + "}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = fmt_text(node.left, names), fmt_text(node.right, names)
        if a is not None and b is not None:
            return a + b
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return fmt_text(node.left, names)
    return None


def name_variants(v, names, depth=0):
    """The texts a local bound to v can hold: one per branch of an if that
    binds it to a literal or f-string in each (None for anything else). A
    conditional expression keeps fmt_text's rule (its else branch)."""
    if isinstance(v, ast.IfExp) and depth < 3:
        a, b = name_variants(v.body, names, depth + 1), name_variants(v.orelse, names, depth + 1)
        return a + b if a is not None and b is not None else None
    if isinstance(v, (ast.Constant, ast.JoinedStr)):
        t = fmt_text(v, names)
        return [t] if t is not None else None
    return None


def fmt_variants(node, names):
    """The texts a log call's format can print: an f-string hole that
    picks between two literals ({'a' if c else 'b'}), or names a local the
    branches of an if bind to different strings, gives one text per
    alternative (at most 8 texts)."""
    names = names or {}
    if isinstance(node, ast.JoinedStr):
        outs = [""]
        for v in node.values:
            if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.IfExp):
                alts = [const_str(v.value.body), const_str(v.value.orelse)]
                if all(x is not None for x in alts) and len(outs) <= 4:
                    outs = [o + x for o in outs for x in alts]
                    continue
            if isinstance(v, ast.FormattedValue) and v.format_spec is None and isinstance(v.value, ast.Name) and getattr(names.get(v.value.id), "branches", False):
                alts = name_variants(names[v.value.id], names)
                if alts and len(outs) * len(alts) <= 8:
                    outs = [o + x for o in outs for x in dict.fromkeys(alts)]
                    continue
            piece = fmt_text(ast.JoinedStr(values=[v]), names)
            outs = [o + (piece or "") for o in outs]
        return outs
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = fmt_variants(node.left, names), fmt_variants(node.right, names)
        if left and right and len(left) * len(right) <= 8:
            return [a + b for a in left for b in right]
        return []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return fmt_variants(node.left, names)
    t = fmt_text(node, names)
    return [t] if t is not None else []


def envs_field_name(node):
    """envs.NAME (or a bare Envs attribute) as NAME."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("envs", "Envs"):
        return node.attr
    return None


def help_text(node):
    """A help= value as text: SUPPRESS for argparse.SUPPRESS (hidden from
    --help), a literal or f-string with {expr} holes, "" otherwise."""
    if node is None:
        return ""
    if text(node) == "argparse.SUPPRESS":
        return "SUPPRESS"
    if isinstance(node, ast.Call) and text(node.func).endswith(".format") and isinstance(node.func, ast.Attribute):
        node = node.func.value
    return " ".join((fmt_text(node) or "").split())


def unwrap_optional(t):
    """Optional[X] and Union[X, None] as X."""
    if isinstance(t, ast.Subscript) and text(t.value) in ("Optional", "typing.Optional"):
        return t.slice
    return t


def literal_values(t):
    if isinstance(t, ast.Subscript) and text(t.value) in ("Literal", "typing.Literal"):
        elts = t.slice.elts if isinstance(t.slice, ast.Tuple) else [t.slice]
        if all(isinstance(e, ast.Constant) for e in elts):
            return [e.value for e in elts]
    return None


def is_list(t):
    return isinstance(t, ast.Subscript) and text(t.value) in ("List", "list", "typing.List")


def scalar(t):
    """The argparse type add_cli_args_from_dataclass infers for X."""
    return {"int": "int", "float": "float"}.get(text(t), "str")


def resolve_choices(node, consts, local, depth=0):
    """A choices expression as its list of strings, where the source spells
    it out: a literal list, set or dict's keys, a module or class constant
    (of any file), a sum of those; None where it is computed at run time."""
    if node is None or depth > 8:
        return None
    again = lambda n: resolve_choices(n, consts, local, depth + 1)
    if isinstance(node, ast.Constant):
        return None if node.value is None else [str(node.value)]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        out = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and e.value is None:
                continue
            v = again(e)
            if v is None or len(v) != 1:
                return None
            out += v
        return sorted(out) if isinstance(node, ast.Set) else out
    if isinstance(node, ast.Dict):
        return again(ast.List(elts=[k for k in node.keys if k is not None]))
    if isinstance(node, ast.Name):
        if node.id in local:
            return again(local[node.id])
        return again(consts.get(node.id))
    if isinstance(node, ast.Attribute):
        # A class constant: names in its value are the class's own first.
        prefix = text(node.value) + "."
        scope = {k[len(prefix):]: v for k, v in consts.items() if k.startswith(prefix)}
        return resolve_choices(consts.get(text(node)), consts, {**local, **scope}, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = again(node.left), again(node.right)
        return a + b if a is not None and b is not None else None
    if isinstance(node, ast.Call) and not node.keywords:
        if text(node.func) in ("list", "sorted", "tuple") and len(node.args) == 1:
            v = again(node.args[0])
            return sorted(v) if v is not None and text(node.func) == "sorted" else v
        if isinstance(node.func, ast.Attribute) and node.func.attr == "keys" and not node.args:
            return again(node.func.value)
    return None


DEPRECATED_HELP = re.compile(r"^[(\[]?deprecated\b", re.I)
REPLACEMENT_HELP = re.compile(r"\b(?:use|alias for)\s+(--[a-z0-9-]+(?:=[^\s,;)]+[^\s,;).])?)", re.I)


def deprecation(action, help, new_flag):
    """Whether a flag is deprecated (a Deprecated* action, or a help text
    that opens with "Deprecated"), and the flag it points to: new_flag=,
    else the one its help says to use."""
    dep = "deprecat" in action.lower() or bool(DEPRECATED_HELP.match(help))
    if dep and not new_flag:
        m = REPLACEMENT_HELP.search(help)
        if m:
            new_flag = m.group(1)
    return dep, new_flag


def negate(test):
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    return ast.UnaryOp(op=ast.Not(), operand=test)


def is_unset_guard(c, name, key):
    """Whether condition c holds only while the variable is unset:
    NAME not in os.environ, os.environ.get(NAME) is None, not envs.NAME.is_set()."""
    def names_it(n):
        s = const_str(n)
        if s is not None:
            return s == name
        return key is not None and isinstance(n, ast.Name) and isinstance(key, ast.Name) and n.id == key.id
    if isinstance(c, ast.BoolOp) and isinstance(c.op, ast.And):
        return any(is_unset_guard(v, name, key) for v in c.values)
    if isinstance(c, ast.Compare) and len(c.ops) == 1:
        op, right = c.ops[0], c.comparators[0]
        if isinstance(op, ast.NotIn) and is_os_environ(right) and names_it(c.left):
            return True
        if isinstance(op, ast.Is) and isinstance(right, ast.Constant) and right.value is None:
            call = c.left
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.args and names_it(call.args[0]):
                if (is_os_environ(call.func.value) and call.func.attr == "get") or (
                    isinstance(call.func.value, ast.Name) and call.func.value.id == "os" and call.func.attr == "getenv"):
                    return True
    if isinstance(c, ast.UnaryOp) and isinstance(c.op, ast.Not):
        o = c.operand
        if isinstance(o, ast.Call) and isinstance(o.func, ast.Attribute) and o.func.attr == "is_set":
            return envs_field_name(o.func.value) == name
        if isinstance(o, ast.Compare) and len(o.ops) == 1 and isinstance(o.ops[0], ast.In) and is_os_environ(o.comparators[0]) and names_it(o.left):
            return True
        # not os.environ.get(NAME) / not os.getenv(NAME): unset or empty.
        if isinstance(o, ast.Call) and isinstance(o.func, ast.Attribute) and len(o.args) == 1 and names_it(o.args[0]):
            if (is_os_environ(o.func.value) and o.func.attr == "get") or (
                isinstance(o.func.value, ast.Name) and o.func.value.id == "os" and o.func.attr == "getenv"):
                return True
    return False


def flag_dest(n):
    """self.X, server_args.X or args.X tested for truth: the dest X."""
    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ("self", "server_args", "args"):
        return n.attr
    return None


def reads_env(node):
    """Whether an expression reads the environment (os.environ, getenv,
    an Envs field, get_*_env_var)."""
    for n in ast.walk(node):
        if is_os_environ(n) or envs_field_name(n):
            return True
        if isinstance(n, ast.Call):
            f = text(n.func)
            if f in ("os.getenv", "getenv") or (f.startswith("get_") and f.endswith("_env_var")):
                return True
    return False


def overwrite_info(conds, name, key):
    """Whether a write only fills the variable in when it is unset; the
    flags (argparse dests) it needs: a list of groups, each met when any one
    of its dests is true; and whether another of its conditions reads the
    environment. Conditions on anything else are not modelled: the write
    may happen under them."""
    fills_only, requires, env = False, [], False
    for _, c in conds:
        if c is None:
            continue
        if is_unset_guard(c, name, key):
            fills_only = True
            continue
        if isinstance(c, ast.BoolOp) and isinstance(c.op, ast.Or):
            rest = [v for v in c.values if not is_unset_guard(v, name, key)]
            if len(rest) < len(c.values):
                # "unset or X": a set value is replaced only under X.
                dests = [flag_dest(v) for v in rest]
                if rest and all(dests):
                    requires.append(dests)
                env = env or any(reads_env(v) for v in rest)
                continue
        env = env or reads_env(c)
        terms = c.values if isinstance(c, ast.BoolOp) and isinstance(c.op, ast.And) else [c]
        for t in terms:
            d = flag_dest(t)
            if d:
                requires.append([d])
            elif isinstance(t, ast.BoolOp) and isinstance(t.op, ast.Or):
                ds = [flag_dest(v) for v in t.values]
                if all(ds):
                    requires.append(ds)
    return fills_only, requires, env


def exits(body):
    """Whether a block always leaves the enclosing block (return, raise...)."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


class Walker:
    """Walks one module with the stack of conditions and functions in force."""

    def __init__(self, rel, tables, dict_literals):
        self.rel = rel
        self.t = tables
        self.conds = []
        self.funcs = []
        self.loops = []  # (target names, iterated node)
        self.dicts = dict_literals  # name -> dict literal node, per module
        self.returns = {}  # function name -> the dict literal it returns
        self.locals = {}  # name -> last value assigned in the current function
        self.cond_nodes = []

    def src(self, node):
        return f"{self.rel}:{node.lineno}"

    def func(self):
        return ".".join(self.funcs)

    # --- statements ------------------------------------------------------
    def block(self, stmts):
        pushed = 0
        for s in stmts:
            self.stmt(s)
            # An if whose body leaves: what follows runs only when it did not hold.
            if isinstance(s, ast.If) and not s.orelse and exits(s.body):
                self.conds.append(("not (" + text(s.test) + ")", negate(s.test)))
                pushed += 1
        del self.conds[len(self.conds) - pushed :]

    def stmt(self, s):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            saved = self.conds
            self.conds = []
            saved_locals = self.locals
            self.locals = {}
            self.funcs.append(s.name)
            for d in getattr(s, "decorator_list", []):
                self.expr(d)
                self.route(s, d)
            if isinstance(s, ast.ClassDef):
                self.class_body(s)
            self.block(s.body)
            self.funcs.pop()
            self.conds = saved
            self.locals = saved_locals
            return
        if isinstance(s, (ast.If, ast.While)):
            self.expr(s.test)
            before = dict(self.locals)
            self.conds.append((text(s.test), s.test))
            self.block(s.body)
            after_body, self.locals = self.locals, before
            self.conds[-1] = ("not (" + text(s.test) + ")", negate(s.test))
            self.block(s.orelse)
            self.conds.pop()
            # A name the two branches bind differently holds either value
            # after the if: a log line that prints it prints one of both.
            for k, v in after_body.items():
                if k not in self.locals:
                    self.locals[k] = v
                elif self.locals[k] is not v:
                    either = ast.IfExp(test=s.test, body=v, orelse=self.locals[k])
                    either.branches = True  # bound by statements, not an expression
                    self.locals[k] = either
            return
        if isinstance(s, (ast.For, ast.AsyncFor)):
            self.expr(s.iter)
            self.loops.append((s.target, s.iter))
            self.conds.append(("for " + text(s.target) + " in " + text(s.iter), None))
            self.block(s.body)
            self.conds.pop()
            self.loops.pop()
            self.block(s.orelse)
            return
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                self.expr(item.context_expr)
            self.block(s.body)
            return
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            self.block(s.body)
            for h in s.handlers:
                self.conds.append(("except " + (text(h.type) or "any"), None))
                self.block(h.body)
                self.conds.pop()
            self.block(s.orelse)
            self.block(s.finalbody)
            return
        if isinstance(s, ast.Match):
            self.expr(s.subject)
            for c in s.cases:
                self.conds.append(("case " + text(c.pattern), None))
                self.block(c.body)
                self.conds.pop()
            return
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for tg in targets:
                if isinstance(tg, ast.Subscript) and is_os_environ(tg.value):
                    self.write(s, tg.slice, "assign", s.value)
            if s.value is not None:
                self.expr(s.value)
                for tg in targets:
                    if isinstance(tg, ast.Name):
                        self.locals[tg.id] = s.value
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Dict):
                self.dicts[s.targets[0].id] = s.value
            tname = getattr(targets[0], "id", None)
            if tname == "_DEPRECATED_ENVS" and isinstance(s.value, ast.Dict):
                self.deprecated_envs(s.value)
            return
        if isinstance(s, ast.Delete):
            for tg in s.targets:
                if isinstance(tg, ast.Subscript) and is_os_environ(tg.value):
                    self.write(s, tg.slice, "unset", None)
            return
        for child in ast.iter_child_nodes(s):
            if isinstance(child, ast.stmt):
                self.stmt(child)
            elif isinstance(child, ast.expr):
                self.expr(child)

    def class_body(self, cls):
        if cls.name == "Envs":
            for s in cls.body:
                if isinstance(s, (ast.Assign, ast.AnnAssign)) and isinstance(s.value, ast.Call):
                    tg = s.targets[0] if isinstance(s, ast.Assign) else s.target
                    if isinstance(tg, ast.Name):
                        kw = {k.arg: text(k.value) for k in s.value.keywords if k.arg}
                        self.t["env_reads"].append({
                            "name": tg.id,
                            "how": "Envs",
                            "type": text(s.value.func),
                            "default": text(s.value.args[0]) if s.value.args else kw.get("default", ""),
                            "alias": const_str(next((k.value for k in s.value.keywords if k.arg == "deprecated_name"), None)) or "",
                            "source": self.src(s),
                        })
        if cls.name == "ServerArgs":
            for s in cls.body:
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                    self.server_field(s)

    # --- expressions -----------------------------------------------------
    def expr(self, e):
        for node in ast.walk(e):
            if isinstance(node, ast.Call):
                self.call(node)
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and is_os_environ(node.value):
                self.read(node, node.slice, "os.environ[]", None)
            elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) and is_os_environ(node.comparators[0]):
                self.read(node, node.left, "in os.environ", None)

    def call(self, c):
        f = c.func
        if isinstance(f, ast.Attribute):
            # os.environ.setdefault / update / pop
            if is_os_environ(f.value) and f.attr in ("setdefault", "update", "pop", "get", "__setitem__"):
                if f.attr == "setdefault" and c.args:
                    self.write(c, c.args[0], "setdefault", c.args[1] if len(c.args) > 1 else None)
                elif f.attr == "__setitem__" and c.args:
                    self.write(c, c.args[0], "assign", c.args[1] if len(c.args) > 1 else None)
                elif f.attr == "update":
                    for a in c.args:
                        d = a if isinstance(a, ast.Dict) else self.dicts.get(getattr(a, "id", None))
                        if isinstance(d, ast.Dict):
                            for k, v in zip(d.keys, d.values):
                                if k is not None:
                                    self.write(c, k, "update", v)
                        else:
                            self.write(c, None, "update", a)
                    for k in c.keywords:
                        if k.arg:
                            self.write(c, ast.Constant(k.arg), "update", k.value)
                elif f.attr == "pop" and c.args:
                    self.write(c, c.args[0], "unset", None)
                elif f.attr == "get" and c.args:
                    self.read(c, c.args[0], "os.environ.get", c.args[1] if len(c.args) > 1 else None)
                return
            if isinstance(f.value, ast.Name) and f.value.id == "os" and f.attr in ("putenv", "getenv", "unsetenv"):
                if c.args:
                    if f.attr == "putenv":
                        self.write(c, c.args[0], "putenv", c.args[1] if len(c.args) > 1 else None)
                    elif f.attr == "unsetenv":
                        self.write(c, c.args[0], "unset", None)
                    else:
                        self.read(c, c.args[0], "os.getenv", c.args[1] if len(c.args) > 1 else None)
                return
            # envs.NAME.set(value) / envs.NAME.clear()
            name = envs_field_name(f.value)
            if name and f.attr in ("set", "clear"):
                how = "envs.set" if f.attr == "set" else "unset"
                self.write(c, ast.Constant(name), how, c.args[0] if c.args else None)
                return
            if f.attr == "add_argument":
                self.argument(c)
                return
            if f.attr in LOG_CALLS:
                self.log(c)
        elif isinstance(f, ast.Name):
            if f.id in METRIC_CLASSES:
                self.metric(c, f.id)
            elif f.id == "print":
                self.log(c)
            elif f.id in LOG_HELPERS and len(c.args) > 1:
                self.log(c, 1)  # log_info_on_rank0(logger, msg)
            elif f.id == "getenv" and c.args:
                self.read(c, c.args[0], "getenv", c.args[1] if len(c.args) > 1 else None)
            elif f.id in ("get_bool_env_var", "get_int_env_var", "get_float_env_var", "get_str_env_var") and c.args:
                self.read(c, c.args[0], f.id, c.args[1] if len(c.args) > 1 else None)
        if isinstance(f, ast.Attribute) and f.attr in METRIC_CLASSES:
            self.metric(c, f.attr)

    # --- rows ------------------------------------------------------------
    def names_of(self, key):
        """The variable names a key expression stands for: a literal, or the
        keys of the dict literal a loop over .items()/.keys() walks."""
        s = const_str(key)
        if s is not None:
            return [s], ""
        if isinstance(key, ast.Name):
            for target, it in reversed(self.loops):
                tnames = [target] if isinstance(target, ast.Name) else list(getattr(target, "elts", []))
                if not tnames or not isinstance(tnames[0], ast.Name) or tnames[0].id != key.id:
                    continue
                d = it
                if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in ("items", "keys"):
                    d = it.func.value
                if isinstance(d, ast.Call) and isinstance(d.func, ast.Name):
                    d = self.returns.get(d.func.id)
                if isinstance(d, ast.Name):
                    d = self.dicts.get(d.id)
                if isinstance(d, ast.Dict):
                    keys = [const_str(k) for k in d.keys if k is not None]
                    if keys and all(k is not None for k in keys):
                        return keys, ""
                if isinstance(d, (ast.List, ast.Tuple)):
                    keys = [const_str(k) for k in d.elts]
                    if keys and all(k is not None for k in keys):
                        return keys, ""
        if isinstance(key, ast.Name) and key.id in self.locals:
            v = self.locals[key.id]
            # key.replace("SGL_", "SGLANG_", 1): a rename by prefix.
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "replace" and len(v.args) >= 2:
                old, new = const_str(v.args[0]), const_str(v.args[1])
                if new and old:
                    return [new + "*"], old + "*"
        return [""], text(key)

    def write(self, node, key, how, value):
        names, expr = self.names_of(key) if key is not None else ([""], "")
        for n in names:
            fills_only, requires, env = overwrite_info(self.conds, n, key)
            self.t["env_writes"].append({
                "name": n,
                "name_expr": expr,
                "how": how,
                "value": text(value),
                "function": self.func(),
                "when": [c[0] for c in self.conds],
                "fills_only": fills_only or how == "setdefault",
                "requires": requires,
                "reads_env": env,
                "source": self.src(node),
            })

    def deprecated_envs(self, d):
        """environ.py's _DEPRECATED_ENVS: NAME -> _DeprecatedEnv(replacement,
        transform, note): SGLang warns when NAME is set and forwards its
        value to the replacement, if any."""
        for k, v in zip(d.keys, d.values):
            name = const_str(k)
            if name is None or not isinstance(v, ast.Call):
                continue
            kw = {x.arg: x.value for x in v.keywords if x.arg}
            self.t["env_reads"].append({
                "name": name,
                "how": "deprecated",
                "replacement": const_str(kw.get("replacement")) or "",
                "transform": text(kw.get("transform")),
                "note": " ".join((fmt_text(kw["note"]) or "").split()) if "note" in kw else "",
                "source": self.src(k),
            })

    def read(self, node, key, how, default):
        names, expr = self.names_of(key)
        for n in names:
            if n:
                self.t["env_reads"].append({"name": n, "how": how, "type": "", "default": text(default), "source": self.src(node)})

    def argument(self, c):
        flags = [const_str(a) for a in c.args]
        if not flags or any(f is None for f in flags):
            return
        kw = {k.arg: k.value for k in c.keywords if k.arg}
        action = text(kw.get("action"))
        action = const_str(kw.get("action")) or action
        takes_value = action in ("", "store") or action.endswith("AliasStoreAction")
        dep, new_flag = deprecation(action, help_text(kw.get("help")), const_str(kw.get("new_flag")) or "")
        default = kw.get("default")
        default_text = text(default)
        if isinstance(default, ast.Attribute) and isinstance(default.value, ast.Name) and default.value.id == "ServerArgs":
            default_text = self.t["_field_defaults"].get(default.attr, default_text)
        dest = const_str(kw.get("dest")) if "dest" in kw else None
        if dest is None:
            long = next((f for f in flags if f.startswith("--")), flags[0])
            dest = long.lstrip("-").replace("-", "_")
        self.t["server_args"].append({
            "flags": flags,
            "dest": dest,
            "type": text(kw.get("type")),
            "action": action,
            "nargs": text(kw.get("nargs")),
            "default": default_text,
            "choices": text(kw.get("choices")),
            "deprecated": dep,
            "removed": action == "DeprecatedAction" and "error_message" in kw,
            "new_flag": new_flag,
            "const": self.choice_values(ast.List(elts=[kw["const_value"] if "const_value" in kw else kw["const"]])) if ("const_value" in kw or "const" in kw) else None,
            "value_type": (text(kw.get("type")) or "str") if takes_value else "",
            "choice_values": self.choice_values(kw.get("choices")),
            "required": text(kw.get("required")) == "True",
            "help": help_text(kw.get("help")),
            "source": self.src(c),
        })

    def choice_values(self, node):
        """Defer a choices expression: it may name constants of files read
        later (resolve_choices spells it out once every file is read)."""
        if node is None:
            return None
        self.t["_pending"].append((node, dict(self.locals)))
        return len(self.t["_pending"]) - 1

    def server_field(self, s):
        ann = s.annotation
        if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and ann.value.id in ("A", "Annotated")):
            default = self.field_default(s.value)
            if default is not None:
                self.t["_field_defaults"][s.target.id] = default
            return
        elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        typ, meta = elts[0], elts[1:]
        arg = {}
        has_cli = False
        help_str = ""
        for m in meta:
            if const_str(m) is not None or isinstance(m, ast.JoinedStr):
                has_cli = True
                help_str = help_text(m)
            elif isinstance(m, ast.Call) and text(m.func) == "Arg":
                has_cli = True
                arg = {k.arg: k.value for k in m.keywords if k.arg}
        default = self.field_default(s.value)
        if default is not None:
            self.t["_field_defaults"][s.target.id] = default
        if not has_cli or text(arg.get("no_cli")) == "True":
            return
        cli = const_str(arg.get("cli_name")) or "--" + s.target.id.replace("_", "-")
        aliases = []
        if isinstance(arg.get("aliases"), (ast.List, ast.Tuple)):
            aliases = [const_str(a) for a in arg["aliases"].elts if const_str(a) is not None]
        action = text(arg.get("action"))
        if not action and text(typ) == "bool":
            action = "store_true"
        # How add_cli_args_from_dataclass registers the field (arg_utils.py):
        # Optional unwrapped; Literal gives the choices; List[X] takes
        # nargs "+"; bool is store_true; a field without a default is
        # required.
        inner = unwrap_optional(typ)
        nargs = text(arg.get("nargs"))
        choices_node = arg.get("choices")
        value_type = ""
        lit = literal_values(inner)
        if action:
            # A custom action's own keywords (LoRAPathAction's type, nargs).
            ak = arg.get("action_kwargs")
            if isinstance(ak, ast.Dict):
                for k, v in zip(ak.keys, ak.values):
                    if const_str(k) == "nargs":
                        nargs = text(v)
                    elif const_str(k) == "type":
                        value_type = text(v)
        elif lit is not None:
            if choices_node is None:
                choices_node = ast.List(elts=[ast.Constant(v) for v in lit])
            first = lit[0] if lit else ""
            value_type = text(arg.get("type_parser")) or {int: "int", float: "float"}.get(type(first), "str")
        elif is_list(inner) and "type_parser" not in arg:
            elem = inner.slice if isinstance(inner, ast.Subscript) else None
            value_type = scalar(elem)
            nargs = nargs or "'+'"
        elif text(inner) == "bool":
            action = "store_true"
        else:
            value_type = text(arg.get("type_parser")) or scalar(inner)
        help_value = help_text(arg.get("help")) if "help" in arg else help_str
        dep, new_flag = deprecation(action, help_value, "")
        self.t["server_args"].append({
            "flags": [cli] + aliases,
            "dest": s.target.id,
            "type": text(arg.get("type_parser")) or text(typ),
            "action": action,
            "nargs": nargs,
            "default": default if default is not None else "",
            "choices": text(arg.get("choices")),
            "deprecated": dep,
            "removed": False,
            "new_flag": new_flag,
            "const": self.choice_values(ast.List(elts=[arg["const"]])) if "const" in arg else None,
            "value_type": value_type,
            "choice_values": self.choice_values(choices_node),
            "required": text(arg.get("required")) == "True" or (default is None and text(arg.get("required")) != "False" and not action),
            "help": help_value,
            "source": self.src(s),
        })

    @staticmethod
    def field_default(v):
        if v is None:
            return None
        if isinstance(v, ast.Call) and text(v.func) in ("dataclasses.field", "field"):
            for k in v.keywords:
                if k.arg == "default":
                    return text(k.value)
                if k.arg == "default_factory":
                    return text(k.value) + "()"
            return None
        return text(v)

    def log(self, c, arg=0):
        if len(c.args) <= arg:
            return
        for s in fmt_variants(c.args[arg], self.locals):
            hits = [m for m in LOG_MARKERS if m in s and (m != "Capture " or s.startswith("Capture "))]
            if not hits:
                continue
            phase, last = LOG_MARKERS[hits[0]]
            if hits[0] == "Capture ":
                # The verb closes the capture's name, within its first words.
                head = s[:120]
                if CAPTURE_BEGIN.search(head):
                    phase, last = "capturing CUDA graphs", False
                elif CAPTURE_END.search(head):
                    phase, last = "CUDA graphs captured", True
                else:
                    continue  # "Capture cuda graph bs [...]": neither
            self.t["log_formats"].append({"marker": hits[0], "phase": phase, "last": last, "format": s, "function": self.func(), "source": self.src(c)})

    def metric(self, c, kind):
        kw = {k.arg: k.value for k in c.keywords if k.arg}
        name = const_str(kw.get("name")) or (const_str(c.args[0]) if c.args else None)
        if name is None and "name" in kw:
            name = fmt_text(kw["name"])
        if not name:
            return
        labels = kw.get("labelnames")
        if labels is None and len(c.args) > 2:
            labels = c.args[2]
        lab = []
        if isinstance(labels, (ast.List, ast.Tuple)):
            lab = [const_str(x) if const_str(x) is not None else "{" + text(x) + "}" for x in labels.elts]
        elif labels is not None:
            lab = ["{" + text(labels) + "}"]
        self.t["metrics"].append({"name": name, "kind": kind, "labels": lab, "source": self.src(c)})

    def route(self, fn, d):
        if not (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in HTTP_METHODS):
            return
        if not (isinstance(d.func.value, ast.Name) and d.func.value.id in ("app", "router")):
            return
        path = const_str(d.args[0]) if d.args else None
        if path is None:
            return
        methods = [d.func.attr.upper()]
        for k in d.keywords:
            if k.arg == "methods" and isinstance(k.value, (ast.List, ast.Tuple)):
                methods = [const_str(x) for x in k.value.elts if const_str(x)]
        self.t["endpoints"].append({"path": path, "methods": methods, "function": fn.name, "source": self.src(d)})


def assigned(s):
    """(name, value) of a NAME = value or NAME: T = value statement."""
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
        return [(s.targets[0].id, s.value)]
    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
        return [(s.target.id, s.value)]
    return []


def main(root):
    tables = {k: [] for k in ("env_writes", "env_reads", "server_args", "metrics", "endpoints", "log_formats")}
    tables["_field_defaults"] = {}
    tables["_consts"] = {}
    tables["_pending"] = []
    tables["skipped"] = []
    base = os.path.join(root, "python", "sglang")
    files = []
    for d, dirs, names in os.walk(base):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".py")]
    # server_args.py first, so ServerArgs.<field> defaults resolve for the
    # add_argument calls that name them.
    files.sort(key=lambda p: (not p.endswith(os.path.join("srt", "server_args.py")), p))
    for path in files:
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        try:
            with open(path, encoding="utf-8-sig") as f:
                tree = ast.parse(f.read(), filename=rel)
        except (SyntaxError, UnicodeDecodeError, ValueError) as e:
            tables["skipped"].append({"file": rel, "why": str(e).splitlines()[0]})
            continue
        w = Walker(rel, tables, {})
        # Module-level dict literals first, so a loop in a function can name them.
        for s in tree.body:
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Dict):
                w.dicts[s.targets[0].id] = s.value
        # Argument tables live in server_args.py and the arg groups only.
        if not (rel.endswith("srt/server_args.py") or "/srt/arg_groups/" in rel):
            w.argument = lambda c: None
        # Module and class constants, which choice lists name.
        for s in tree.body:
            for name, value in assigned(s):
                tables["_consts"].setdefault(name, value)
            if isinstance(s, ast.ClassDef):
                for c in s.body:
                    for name, value in assigned(c):
                        tables["_consts"].setdefault(s.name + "." + name, value)
        for s in tree.body:
            if isinstance(s, ast.FunctionDef):
                for r in ast.walk(s):
                    if isinstance(r, ast.Return) and isinstance(r.value, ast.Dict):
                        w.returns[s.name] = r.value
        w.block(tree.body)
    pending = tables.pop("_pending")
    for row in tables["server_args"]:
        i = row["choice_values"]
        row["choice_values"] = None if i is None else resolve_choices(pending[i][0], tables["_consts"], pending[i][1])
        # A store-const value, spelled out where it names a constant.
        i = row["const"]
        if i is not None:
            v = resolve_choices(pending[i][0], tables["_consts"], pending[i][1])
            row["const"] = v[0] if v and len(v) == 1 else text(pending[i][0].elts[0])
        else:
            row["const"] = ""
    del tables["_field_defaults"]
    del tables["_consts"]
    json.dump(tables, sys.stdout, indent=None, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: extract.py ROOT")
    main(sys.argv[1])
