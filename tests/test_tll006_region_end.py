"""Where the TLL006 region fix ends, in scripts, `# %%` percent-format files and notebooks:
where the evaluation code ends. It never wraps a later `def`/`class`, never crosses a cell
marker or a notebook cell, and prefers the smallest region covering the evaluated calls."""

from __future__ import annotations

import textwrap

import nbformat

from notebook_maker import notebook_of, write
from torchleaklint.config import Settings
from torchleaklint.engine import lint_source
from torchleaklint.fixes import fix_text

HEAD = """\
import torch

model = torch.nn.Linear(4, 2)
loader = [torch.randn(3, 4) for _ in range(2)]
"""


def _fix(source: str, name: str = "train.py") -> str:
    result = fix_text(source, name, Settings())
    assert fix_text(result.text, name, Settings()).text == result.text, "idempotent"
    compile(result.text, name, "exec")
    return result.text


def test_script_region_stops_before_a_later_def_and_class():
    source = HEAD + textwrap.dedent("""\
        model.eval()
        for x in loader:
            print(model(x).argmax())


        def helper(x):
            return x + 1


        class Report:
            pass
        """)
    assert _fix(source) == HEAD + textwrap.dedent("""\
        model.eval()
        with torch.no_grad():
            for x in loader:
                print(model(x).argmax())


        def helper(x):
            return x + 1


        class Report:
            pass
        """)


def test_smallest_region_is_the_loop():
    source = HEAD + "model.eval()\nfor x in loader:\n    print(model(x).argmax())\nprint('done')\nsteps = 3\n"
    fixed = _fix(source)
    assert fixed.endswith("with torch.no_grad():\n    for x in loader:\n        print(model(x).argmax())\n"
                          "print('done')\nsteps = 3\n")


def test_region_grows_when_a_value_from_the_loop_is_used_after_it():
    # `out` (a model output) is read after the loop: wrapping only the loop would leave the
    # later statement outside no_grad, with the whole region as the fallback.
    source = HEAD + "model.eval()\nfor x in loader:\n    out = model(x)\nprint(out.sum())\n"
    fixed = _fix(source)
    assert fixed.endswith("with torch.no_grad():\n    for x in loader:\n        out = model(x)\n"
                          "    print(out.sum())\n")


def test_percent_format_region_stops_at_the_cell_marker():
    source = HEAD + textwrap.dedent("""\
        # %% evaluate
        model.eval()
        for x in loader:
            out = model(x)
        print(out.argmax())

        # %% report
        print("report")
        """)
    fixed = _fix(source)
    assert "with torch.no_grad():\n    for x in loader:\n        out = model(x)\n    print(out.argmax())\n" \
        "\n# %% report\nprint(\"report\")\n" in fixed


def test_no_fix_when_the_eval_ends_its_cell():
    # model.eval() is the last statement before the marker: nothing in its cell to wrap
    source = HEAD + "model.eval()\n# %%\nfor x in loader:\n    print(model(x))\n"
    [d] = [d for d in lint_source(source, "train.py", Settings()) if d.code == "TLL006"]
    assert d.fix is None


def test_notebook_region_stays_in_its_cell():
    nb = notebook_of([HEAD.rstrip("\n"), "model.eval()\nfor x in loader:\n    print(model(x).argmax())",
                      "print('done')", "def helper(x):\n    return x + 1"])
    fixed = nbformat.reads(_fix(write(nb), "train.ipynb"), as_version=4)
    nbformat.validate(fixed)
    assert [c.source for c in fixed.cells if c.cell_type == "code"] == [
        HEAD.rstrip("\n"),
        "model.eval()\nwith torch.no_grad():\n    for x in loader:\n        print(model(x).argmax())",
        "print('done')", "def helper(x):\n    return x + 1"]


def test_no_notebook_fix_when_a_later_cell_reads_a_model_output():
    # The region cannot grow into the next cell, which reads `out`: no fix rather than a
    # wrap across cells.
    nb = write(notebook_of([HEAD.rstrip("\n"), "model.eval()\nfor x in loader:\n    out = model(x)",
                            "print(out.argmax())"]))
    [d] = [d for d in lint_source(nb, "train.ipynb", Settings()) if d.code == "TLL006"]
    assert (d.cell, d.line, d.fix) == (4, 3, None)
