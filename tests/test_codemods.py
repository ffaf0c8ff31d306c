"""Codemods on small sources, with FixSpecs built from ast nodes the way rules build them."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst

from torchleaklint.diagnostics import SAFE, UNSAFE, FixSpec, Span
from torchleaklint.fixes.codemods import codemods


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _apply(name: str, source: str, specs) -> str:
    return codemods()[name](cst.parse_module(source), specs).code


def _nodes(source, node_type, where=lambda n: True):
    return [n for n in ast.walk(ast.parse(source)) if isinstance(n, node_type) and where(n)]


def _span(n):
    return (n.lineno, n.col_offset, n.end_lineno, n.end_col_offset)


# append_method -------------------------------------------------------------------------

def _append(source, method, exprs):
    spec = FixSpec("append_method", SAFE, "t", Span.of(exprs[0]),
                   (("method", method), ("targets", tuple(_span(e) for e in exprs))))
    return _apply("append_method", source, [spec])


def test_append_method_parenthesizes_compound_expressions():
    source = "total += loss * w  # keep\nema = 0.9 * ema + -loss\n"
    aug = _nodes(source, ast.AugAssign)[0]
    neg = _nodes(source, ast.UnaryOp)[0]
    out = _append(source, "item", [aug.value, neg])
    assert out == "total += (loss * w).item()  # keep\nema = 0.9 * ema + (-loss).item()\n"


def test_append_method_on_non_ascii_line_uses_character_columns():
    source = "x = 'é€'; total += model(x)\n"
    call = _nodes(source, ast.Call)[0]
    assert _append(source, "detach", [call]) == "x = 'é€'; total += model(x).detach()\n"


def test_append_method_keeps_existing_parentheses_and_skips_detached_values():
    source = "total += (loss)\nother += loss.item()\n"
    names = _nodes(source, ast.Name, lambda n: n.id == "loss" and n.lineno == 1)
    call = _nodes(source, ast.Call)[0]
    assert _append(source, "item", names + [call]) == "total += (loss).item()\nother += loss.item()\n"


# delete_statement ----------------------------------------------------------------------

def _delete(source):
    specs = [FixSpec("delete_statement", SAFE, "t", Span.of(n))
             for n in _nodes(source, ast.Expr, lambda n: "empty_cache" in ast.unparse(n))]
    return _apply("delete_statement", source, specs)


def test_delete_statement_keeps_comments_and_fills_empty_blocks():
    source = _src("""
        for x in xs:
            step(x)
            # tidy up

            torch.cuda.empty_cache()  # this comment goes with it
            if x: torch.cuda.empty_cache()
            a = 1; torch.cuda.empty_cache()
            with ctx():
                torch.cuda.empty_cache()
        done()
        """)
    assert _delete(source) == _src("""
        for x in xs:
            step(x)
            # tidy up

            if x: pass
            a = 1
            with ctx():
                pass
        done()
        """)


def test_delete_statement_last_in_block_moves_its_comment_to_the_footer():
    source = "for x in xs:\n    step(x)\n    # free\n    torch.cuda.empty_cache()\nafter()\n"
    assert _delete(source) == "for x in xs:\n    step(x)\n    # free\nafter()\n"


# add_no_grad_decorator -----------------------------------------------------------------

def _decorate(source, alias):
    specs = [FixSpec("add_no_grad_decorator", SAFE, "t", Span.of(n), (("torch_alias", alias),))
             for n in _nodes(source, (ast.FunctionDef, ast.AsyncFunctionDef), lambda n: n.name.startswith("ev"))]
    return _apply("add_no_grad_decorator", source, specs)


def test_no_grad_goes_below_existing_decorators_with_the_module_alias():
    source = "import torch as th\nclass M:\n    @staticmethod\n    def evaluate(m, x):\n        return m(x)\n"
    assert _decorate(source, "th") == (
        "import torch as th\nclass M:\n    @staticmethod\n    @th.no_grad()\n    def evaluate(m, x):\n"
        "        return m(x)\n")


def test_no_grad_adds_import_torch_after_docstring_and_future_imports():
    source = '"""Doc."""\nfrom __future__ import annotations\n\nfrom torch import nn\n\ndef evaluate(m, x):\n    return m(x)\n'
    assert _decorate(source, None) == (
        '"""Doc."""\nfrom __future__ import annotations\n\nimport torch\nfrom torch import nn\n\n'
        '@torch.no_grad()\ndef evaluate(m, x):\n    return m(x)\n')


def test_no_grad_skips_async_and_already_disabled_functions():
    source = ("import torch\nasync def evaluate(m, x):\n    return m(x)\n"
              "@torch.inference_mode()\ndef evaluate2(m, x):\n    return m(x)\n")
    assert _decorate(source, "torch") == source


# wrap_in_no_grad ----------------------------------------------------------------------

def _wrap(source, alias="torch", count=None):
    """Wrap the statements after each `.eval()` statement (all the rest of its block, or
    `count` of them)."""
    tree = ast.parse(source)
    specs = []
    for owner in ast.walk(tree):
        body = getattr(owner, "body", None)
        if not isinstance(body, list):
            continue
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.Expr) and ast.unparse(stmt).endswith(".eval()"):
                rest = body[i + 1:i + 1 + count] if count else body[i + 1:]
                specs.append(FixSpec("wrap_in_no_grad", SAFE, "t", Span.of(stmt),
                                     (("torch_alias", alias), ("first", _span(rest[0])), ("last", _span(rest[-1])))))
    return _apply("wrap_in_no_grad", source, specs)


def test_wrap_in_no_grad_reindents_and_keeps_comments():
    source = _src("""
        import torch as th


        def fit(model, loader, val):
            for epoch in range(3):
                for x in loader:
                    model(x).sum().backward()
                model.eval()

                # validate
                total = 0
                for x in val:
                    total += model(x).sum().item()  # keep
                print("epoch", epoch,
                      total)
                # end of epoch
            return model
        """)
    assert _wrap(source, "th") == _src("""
        import torch as th


        def fit(model, loader, val):
            for epoch in range(3):
                for x in loader:
                    model(x).sum().backward()
                model.eval()

                with th.no_grad():
                    # validate
                    total = 0
                    for x in val:
                        total += model(x).sum().item()  # keep
                    print("epoch", epoch,
                          total)
                # end of epoch
            return model
        """)


def test_wrap_in_no_grad_stops_before_train_at_module_level_and_adds_import():
    source = "from torch import nn\nmodel.eval()\n\nout = model(x)\n\nscore(out)\nmodel.train()\n"
    assert _wrap(source, None, count=2) == (
        "import torch\nfrom torch import nn\nmodel.eval()\n\nwith torch.no_grad():\n    out = model(x)\n\n"
        "    score(out)\nmodel.train()\n")


def test_wrap_in_no_grad_leaves_shared_lines_and_suites_alone():
    for source in ("model.eval(); out = model(x)\nscore(out)\n",
                   "model.eval()\nout = model(x); model.train()\n",
                   "if ok: model.eval(); out = model(x)\n"):
        tree = ast.parse(source)
        stmts = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and not isinstance(n, ast.If)]
        spec = FixSpec("wrap_in_no_grad", SAFE, "t", Span.of(stmts[0]),
                       (("torch_alias", "torch"), ("first", _span(stmts[1])), ("last", _span(stmts[1]))))
        assert _apply("wrap_in_no_grad", source, [spec]) == source


# detach_stored_state -------------------------------------------------------------------

def _detach_state(source):
    specs = []
    for n in _nodes(source, (ast.Assign, ast.AugAssign)):
        target = n.targets[0] if isinstance(n, ast.Assign) else n.target
        if isinstance(target, ast.Attribute) and target.attr in ("y", "h"):
            specs.append(FixSpec("detach_stored_state", UNSAFE, "t", Span.of(n), (("attribute", target.attr),)))
    return _apply("detach_stored_state", source, specs)


def test_detach_state_returns_the_live_value():
    source = _src("""
        class Plant:
            def step(self, u):
                next_y = self.y + u
                self.y = next_y
                scaled = self.y * 2
                return self.y, scaled
        """)
    assert _detach_state(source) == _src("""
        class Plant:
            def step(self, u):
                next_y = self.y + u
                self.y = next_y.detach()
                scaled = next_y * 2
                return next_y, scaled
        """)


def test_detach_state_augmented_and_expression_values_when_not_read_again():
    source = "class C:\n    def step(self, u):\n        self.y += u * 2\n        self.h = torch.tanh(u)\n"
    assert _detach_state(source) == (
        "class C:\n    def step(self, u):\n        self.y = (self.y + (u * 2)).detach()\n"
        "        self.h = torch.tanh(u).detach()\n")


def test_detach_state_in_a_tuple_assignment_detaches_only_the_stored_elements():
    source = ("class C:\n    def forward(self, x):\n        code = f(x)\n"
              "        self.s, self.last, n = self.m * self.s + code, code, 1\n        return code\n")
    specs = [FixSpec("detach_stored_state", UNSAFE, "t", Span.of(_nodes(source, ast.Assign)[1]), (("attribute", a),))
             for a in ("s", "last")]
    assert _apply("detach_stored_state", source, specs) == (
        "class C:\n    def forward(self, x):\n        code = f(x)\n"
        "        self.s, self.last, n = (self.m * self.s + code).detach(), code.detach(), 1\n        return code\n")
    later_read = source.replace("return code", "return self.s")
    assert _apply("detach_stored_state", later_read, specs[:1]) == later_read


def test_detach_state_refuses_when_a_later_read_cannot_be_redirected():
    cases = [
        # the read follows the `if` holding the assignment: next_y may be unbound there
        "class C:\n    def step(self, u):\n        if u:\n            self.y = u\n        return self.y\n",
        # an expression value read again: detaching would cut the caller's gradient
        "class C:\n    def step(self, u):\n        self.h = torch.tanh(u)\n        return self.h\n",
        # the name is rebound before the read
        "class C:\n    def step(self, u):\n        self.y = u\n        u = 0\n        return self.y\n",
        # a method call may change self.y before the read
        "class C:\n    def step(self, u):\n        self.y = u\n        self.reset()\n        return self.y\n",
    ]
    for source in cases:
        assert _detach_state(source) == source


# insert_detach -------------------------------------------------------------------------

def _insert(source, name="hidden", tuple_size=0):
    loop = _nodes(source, (ast.For, ast.While))[0]
    spec = FixSpec("insert_detach", UNSAFE, "t", Span.of(loop), (("name", name), ("tuple_size", tuple_size)))
    return _apply("insert_detach", source, [spec])


def test_insert_detach_tensor_and_tuple():
    source = "def f(m, xs):\n    hidden = m.init()\n    for x in xs:\n        # step\n        out, hidden = m(x, hidden)\n"
    assert _insert(source) == (
        "def f(m, xs):\n    hidden = m.init()\n    for x in xs:\n        hidden = hidden.detach()\n"
        "        # step\n        out, hidden = m(x, hidden)\n")
    assert "hidden = tuple(t.detach() for t in hidden)\n" in _insert(source, tuple_size=2)


def test_insert_detach_of_a_state_of_unknown_structure_works_for_a_tensor_and_a_tuple():
    source = "def f(m, xs):\n    hidden = m.init()\n    for x in xs:\n        out, hidden = m(x, hidden)\n"
    fixed = _insert(source, tuple_size=-1)
    line = next(s.strip() for s in fixed.splitlines() if s.strip().startswith("hidden = hidden"))
    import torch
    for state in (torch.ones(2, requires_grad=True) * 2, (torch.ones(2, requires_grad=True) * 2,) * 2):
        scope = {"hidden": state}
        exec(line, scope)
        detached = scope["hidden"] if isinstance(scope["hidden"], tuple) else (scope["hidden"],)
        assert all(t.grad_fn is None for t in detached)
    assert _insert(fixed, tuple_size=-1) == fixed  # idempotent


def test_insert_detach_guards_a_state_that_starts_as_none():
    source = "def f(m, xs):\n    hidden = None\n    for x in xs:\n        out, hidden = m(x, hidden)\n"
    assert _insert(source) == (
        "def f(m, xs):\n    hidden = None\n    for x in xs:\n        if hidden is not None:\n"
        "            hidden = hidden.detach()\n        out, hidden = m(x, hidden)\n")


def test_insert_detach_several_names_carried_together():
    source = "def f(m, xs):\n    h, c = m.init()\n    for x in xs:\n        out, (h, c) = m(x, (h, c))\n"
    loop = _nodes(source, ast.For)[0]
    spec = FixSpec("insert_detach", UNSAFE, "t", Span.of(loop),
                   (("name", "h, c"), ("tuple_size", 2), ("names", ("h", "c"))))
    assert _apply("insert_detach", source, [spec]) == (
        "def f(m, xs):\n    h, c = m.init()\n    for x in xs:\n        h = h.detach()\n        c = c.detach()\n"
        "        out, (h, c) = m(x, (h, c))\n")
    unbound = source.replace("h, c = m.init()", "h = m.init()")
    assert _apply("insert_detach", unbound, [spec]) == unbound


def test_insert_detach_refuses_a_state_first_bound_inside_the_loop():
    source = "def f(m, xs):\n    for i, x in enumerate(xs):\n        if i == 0:\n            hidden = m.init()\n        out, hidden = m(x, hidden)\n"
    assert _insert(source) == source


# move_to_with_parameters ---------------------------------------------------------------

TUNE = _src("""
    from ray import tune

    def train_fn(config, checkpoint_dir=None):
        data = config["data"]
        return fit(data, config.get("data"), config["lr"])

    def launch(df):
        tune.run(train_fn, config={"lr": 0.1, "data": df})
    """)


def _tune(source, key="data"):
    tree = ast.parse(source)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "tune.run")
    entry = next((k, v) for d in ast.walk(tree) if isinstance(d, ast.Dict)
                 for k, v in zip(d.keys, d.values) if isinstance(k, ast.Constant) and k.value == key)
    spec = FixSpec("move_to_with_parameters", UNSAFE, "t",
                   Span(entry[0].lineno, entry[0].col_offset, entry[1].end_lineno, entry[1].end_col_offset),
                   (("key", key), ("call", _span(call)), ("trainable", _span(call.args[0])),
                    ("tune_alias", "tune")))
    return _apply("move_to_with_parameters", source, [spec])


def test_move_to_with_parameters_rewrites_config_trainable_and_reads():
    assert _tune(TUNE) == _src("""
        from ray import tune

        def train_fn(config, checkpoint_dir=None, *, data):
            return fit(data, data, config["lr"])

        def launch(df):
            tune.run(tune.with_parameters(train_fn, data=df), config={"lr": 0.1})
        """)


def test_move_to_with_parameters_refuses_when_config_escapes():
    source = TUNE.replace('return fit(data, config.get("data"), config["lr"])', "return fit(data, config)")
    assert _tune(source) == source
