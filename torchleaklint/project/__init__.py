"""Whole-project analysis: follow calls, classes and imports across the modules of a project.

Two phases (see `run.py`): every module is summarized (`summary.py`: plain data, cached by
content), then each file is checked with a `ProjectView` (`view.py`) answering from the
summaries of what it imports and the call sites other modules have of its functions.
Third-party and unresolvable imports stay opaque.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
import warnings
from typing import Dict, Iterable, List, Optional, Tuple

from torchleaklint.project import modules
from torchleaklint.project.packed import Packed, sorted_items
from torchleaklint.project.siteindex import SiteIndex
from torchleaklint.project.summary import summarize
from torchleaklint.project.view import CALLERS, OWNERS, SITE_MARK, SUBMODULE, ProjectView, Resolver, has_external_callers

__all__ = ["Project", "ProjectView", "analyze_file", "fingerprint", "summary_digest", "summarize_file"]


def summary_digest(summary: Optional[dict]) -> str:
    """Digest of what another module's check reads of a summary: not the calls it makes (those
    reach the called module's fingerprint as its call sites, as do its Tune uses) nor its import list."""
    if summary is not None:
        summary = {k: v for k, v in summary.items() if k not in ("calls", "imports", "tune", "named")}
    text = json.dumps(summary, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


class Project:
    """The summaries of a run's modules and the index of who calls what across them."""

    def __init__(self, summaries: Dict[str, dict]):
        self.summaries = summaries
        # each summary's digest, once computed (on disk for a run's project, as its summaries)
        self._digests: Dict[str, str] = Packed() if isinstance(summaries, Packed) else {}
        self._sites: Optional[Dict[str, Dict[str, List[dict]]]] = None
        # method name -> the classes of the project defining it (built with the sites)
        self._owners: Optional[Dict[str, dict]] = None
        self._aliasing: Dict[str, set] = {}  # ProjectView.names_aliasing's answers, shared by the views

    def frozen(self) -> "Project":
        """A copy for worker processes: the summaries and call sites as they are now, whatever
        the run stores into this project's maps after."""
        copy = Project(_frozen(self.summaries))
        copy._digests = {}  # (a worker's own, if it asks)
        copy._sites = _frozen(self._sites)
        copy._owners = self._owners
        return copy

    def digest(self, path: str) -> str:
        found = self._digests.get(path)
        if found is None:
            found = self._digests[path] = summary_digest(self.summaries.get(path))
        return found

    def sites(self) -> Dict[str, Dict[str, List[dict]]]:
        """file -> objpath -> call sites in other files (a `self.m()` site also reaches the
        overrides of `m` in subclasses defined elsewhere)."""
        if self._sites is not None:
            return self._sites
        index = SiteIndex()  # on disk, a row per site: written as a dict of dicts of lists
        children = self._subclasses()
        repeated = self._called_in_loops()
        for path, summary in sorted_items(self.summaries):
            resolver = Resolver(path, self.summaries)
            for call in summary.get("calls", ()):
                site = dict(call, path=path)
                if "in" in call and (path, call["in"]) in repeated:
                    site["lpx"] = 1  # its function is called over and over by another module's loop
                    site["tr"] = site["tr"] or repeated[(path, call["in"])]  # (a training loop)
                found = resolver.lookup(call["t"])
                if found is not None and found[0] == "class" and found[2] != path and not call["self"] \
                        and "__init__" in (found[1] or {}).get("methods", ()):
                    # `sim = DriftSimulator(model)`: a call of the class's own `__init__`
                    index.setdefault(found[2], {}).setdefault(f"{found[3]}.__init__", []).append(site)
                if found is not None and found[0] == "function" and found[2] != path:
                    index.setdefault(found[2], {}).setdefault(found[3], []).append(site)
                    # `plant.detach_state()` of a method `MassSpringPlant` inherits: also under
                    # the receiver's class, whose module asks which of its inherited methods run
                    cls_path, cls = _owner(resolver, call["t"]) if "." in found[3] else (None, "")
                    inherited = f"{cls}.{call['t'].rsplit('.', 1)[-1]}"
                    if cls_path is not None and cls_path != path and inherited != found[3]:
                        index.setdefault(cls_path, {}).setdefault(f"~inh:{inherited}", []).append(site)
                if call["self"]:
                    cls_path, cls = _owner(resolver, call["t"])
                    method = call["t"].rsplit(".", 1)[-1]
                    for sub_path, sub in _descendants(children, (cls_path, cls)):
                        sub_summary = self.summaries.get(sub_path) or {}
                        entry = sub_summary.get("classes", {}).get(sub)
                        if sub_path != path and entry and method in entry["methods"]:
                            index.setdefault(sub_path, {}).setdefault(f"{sub}.{method}", []).append(site)
        _index_overrides(index, self.summaries, children)
        _index_named_calls(index, self.summaries)
        if self._owners is None:
            self._owners = _method_owners(self.summaries, children)
        _index_backpropagated_attributes(index, self.summaries)
        _index_differentiating_forwards(index, self.summaries)
        _index_training_steps(index, self.summaries)
        from torchleaklint.semantic.tune_project import index_tune_uses

        index_tune_uses(index, self.summaries)  # dicts of a module that others pass to Ray Tune
        # each file's sites sorted by (path, line, column), kept for the run, read one file's at a time
        self._sites = index.packed()
        return self._sites

    def _called_in_loops(self) -> Dict[Tuple[str, str], bool]:
        """(file, objpath) of the functions and methods another module calls in a loop with
        autograd on (`agent.select_action(state)` per environment step) -> whether one such
        loop trains."""
        found: Dict[Tuple[str, str], bool] = {}
        for path, summary in sorted_items(self.summaries):
            calls = [c for c in summary.get("calls", ()) if c.get("lp") and not c.get("ng")]
            if not calls:
                continue
            resolver = Resolver(path, self.summaries)
            for call in calls:
                target = resolver.lookup(call["t"])
                if target is not None and target[0] == "function" and target[2] != path:
                    key = (target[2], target[3])
                    found[key] = found.get(key, False) or bool(call.get("tr"))
        return found

    def _subclasses(self) -> Dict[Tuple[str, str], List[Tuple[str, str]]]:
        children: Dict[Tuple[str, str], List[Tuple[str, str]]] = {}
        for path, summary in self.summaries.items():
            resolver = Resolver(path, self.summaries)
            for cls, entry in summary.get("classes", {}).items():
                for base in entry["bases"]:
                    parent = resolver.base_class(path, base)
                    if parent is not None and parent != (path, cls):
                        children.setdefault(parent, []).append((path, cls))
        return children

    def owners(self) -> Dict[str, dict]:
        """method name -> the classes of the project defining it (`_method_owners`)."""
        if self._owners is None:
            self._owners = _method_owners(self.summaries, self._subclasses())
        return self._owners

    def view(self, path: str) -> ProjectView:
        path = os.path.abspath(path)
        return ProjectView(path, self.summaries, self.sites().get(path, {}), self._aliasing, self._owners)

    def asked_sites(self, path: str, reads: Iterable[str]) -> Optional[str]:
        """A digest of the call sites (and callers) of its own functions a file's analysis
        asked about (`view.SITE_MARK` among its reads), as they are in this project: what a
        summary read of other modules besides their summaries. None when there are none."""
        asked = self._asked(os.path.abspath(path), reads)
        if not any(asked.values()):
            return None
        text = json.dumps(asked, sort_keys=True)
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()

    def _asked(self, path: str, reads: Iterable[str]) -> dict:
        """The call sites of the file's functions (and whether other modules call into it) for
        each `view.SITE_MARK` key among its reads."""
        sites = self.sites().get(path) or {}
        asked = {}
        for read in reads:
            if read == SITE_MARK + CALLERS:
                asked[read] = has_external_callers(sites)
            elif read.startswith(SITE_MARK + OWNERS):
                asked[read] = self.owners().get(read[len(SITE_MARK + OWNERS):])
            elif read.startswith(SITE_MARK):
                asked[read] = sites.get(read[len(SITE_MARK):], [])
        return asked

    def fingerprint(self, path: str, reads: Iterable[str]) -> Optional[str]:
        """What a file's check depended on: the summaries it read and the call sites other
        modules have of its functions that it asked about (`view.SITE_MARK` among its
        reads). Part of the file's cache key."""
        path = os.path.abspath(path)
        reads = sorted(set(reads))
        asked = self._asked(path, reads)
        parts = [f"{read}={self.digest(read)}" for read in reads if not read.startswith(SITE_MARK) and read != path]
        if not parts and not any(asked.values()):
            # the check depended on nothing outside the file: a plain cache entry (should
            # another module start calling what it asked about, the fingerprint is no longer None)
            return None
        parts.append(json.dumps(asked, sort_keys=True))
        return hashlib.blake2b("\n".join(parts).encode(), digest_size=12).hexdigest()


def _frozen(mapping):
    return mapping.frozen() if isinstance(mapping, Packed) else mapping


def _index_overrides(index: dict, summaries: Dict[str, dict], children) -> None:
    """`~ovr:Cls.m` -> what the overrides of an abstract method `Cls.m` in subclasses of other
    modules return, and whether they run a training step (`Trainer.train_step` in trainer.py
    for `BaseTrainer.train_step`, which only raises NotImplementedError): what
    `self.train_step(batch)` in the base's `fit` gets and does."""
    for path, summary in summaries.items():
        functions = summary.get("functions") or {}
        for cls, entry in (summary.get("classes") or {}).items():
            stubs = [m for m in entry["methods"] if (functions.get(f"{cls}.{m}") or {}).get("stub")]
            for method in stubs:
                for sub_path, sub in _descendants(children, (path, cls)):
                    sub_summary = summaries.get(sub_path) or {}
                    sub_entry = (sub_summary.get("classes") or {}).get(sub)
                    override = (sub_summary.get("functions") or {}).get(f"{sub}.{method}")
                    if sub_path == path or not sub_entry or method not in sub_entry["methods"] or not override:
                        continue
                    index.setdefault(path, {}).setdefault(f"~ovr:{cls}.{method}", []).append(
                        {"path": sub_path, "l": 0, "c": 0, "ret": override.get("ret"),
                         "step": bool(override.get("step")), "ep": bool(override.get("ep")),
                         "fwdp": override.get("fwdp") or []})


def _index_named_calls(index: dict, summaries: Dict[str, dict]) -> None:
    """`~method` -> [{"n": calls, "ng": under no-grad, "ref": references, "po": passed on}]:
    the calls other modules make of a method name on receivers of unknown class (and the
    references to it as a value, and the calls a holder's method of that name makes on a
    part), for each module whose classes define it."""
    totals: Dict[str, Dict[str, List[int]]] = {}
    for path, summary in summaries.items():
        for name, counted in (summary.get("named") or {}).items():
            counts = totals.setdefault(name, {}).setdefault(path, [0, 0, 0, 0])
            for i, n in enumerate(counted[:4]):
                counts[i] += n
    if not totals:
        return
    # each name's counts over all modules, once: a module's share is taken off (a file asked
    # for each method of its classes summed every caller's counts, `forward` has hundreds)
    overall = {name: [sum(c[i] for c in callers.values()) for i in range(4)] for name, callers in totals.items()}
    for path, summary in summaries.items():
        methods = {m for entry in summary.get("classes", {}).values() for m in entry["methods"] if m in totals}
        for method in sorted(methods):
            callers = totals[method]
            own = callers.get(path)
            if own is not None and len(callers) == 1:
                continue  # only the module itself calls it
            n, ng, ref, po = (overall[method][i] - (own[i] if own is not None else 0) for i in range(4))
            index.setdefault(path, {})[f"~{method}"] = [{"path": "", "l": 0, "c": 0, "n": n, "ng": ng, "ref": ref, "po": po}]


def _method_owners(summaries: Dict[str, dict], children) -> Dict[str, dict]:
    """method name -> {"owners": the module classes of the project defining it, "others": its
    other classes defining it, "sub": {owner: the classes of the project inheriting from it}}
    (qualified names): the classes an object may be of that code calls the method on
    (`policy.act_inference(obs)` in a play script that imports nothing of the project;
    `storage.add(...)` on a parameter). For every module of the run, including one not yet
    summarized: what a file asks does not depend on its own summary."""
    def qual(key) -> str:
        return f"{(summaries.get(key[0]) or {}).get('module') or ''}.{key[1]}"

    def descendants(key, depth: int = 0) -> List[str]:
        out: List[str] = []
        for child in children.get(key, ()) if depth < 8 else ():
            if (summaries.get(child[0]) or {}).get("module"):
                out.append(qual(child))
            out += descendants(child, depth + 1)
        return out

    owners: Dict[str, dict] = {}
    for path, summary in sorted_items(summaries):
        module = summary.get("module") or ""
        if not module:
            continue
        for cls, entry in (summary.get("classes") or {}).items():
            group = "owners" if entry.get("kind") == "module" else "others"
            below = sorted(set(descendants((path, cls)))) if (path, cls) in children else None
            for method in entry["methods"]:
                if not method.startswith("__"):
                    found = owners.setdefault(method, {"owners": [], "others": []})
                    found[group].append(f"{module}.{cls}")
                    if below is not None:
                        found.setdefault("sub", {})[f"{module}.{cls}"] = below
            if group == "owners":
                for attr, value in (entry.get("attrs") or {}).items():
                    if _a_trainable_module(value):
                        # `.encoder` -> the module classes whose `__init__` stores a submodule there
                        owners.setdefault(SUBMODULE + attr, {"owners": [], "others": []})["owners"].append(
                            f"{module}.{cls}")
    return owners


def _a_trainable_module(encoded) -> bool:
    """Is a summary's encoded attribute value a module that is not frozen?"""
    return encoded == "module" or isinstance(encoded, dict) and encoded.get("k") == "module" and not encoded.get("z")


def _index_backpropagated_attributes(index: dict, summaries: Dict[str, dict]) -> None:
    """`~bwa` -> the attributes a module's classes store on `self` that other modules' backwards
    read (`self.loss` of a loss module, `model.aux.loss` back-propagated by the trainer);
    `~fst` -> those that other modules store on its objects (`rnn.hidden = ...`)."""
    _index_attributes_used_elsewhere(index, summaries, "bwa", "~bwa")
    _index_attributes_used_elsewhere(index, summaries, "fattrs", "~fst")


def _index_differentiating_forwards(index: dict, summaries: Dict[str, dict]) -> None:
    """`~gfw` -> the module classes of the project whose `forward` computes gradients on
    purpose (`torch.autograd.grad(sdf, x, create_graph=True)` for a surface's normals), for
    every module: a model of a class chosen at run time may be one of them."""
    found = [f"{path}:{cls}" for path, summary in summaries.items()
             for cls, entry in (summary.get("classes") or {}).items() if entry.get("gfw")]
    if found:
        for path in summaries:
            index.setdefault(path, {})["~gfw"] = [{"path": "", "l": 0, "c": 0, "classes": sorted(found)}]


def _index_training_steps(index: dict, summaries: Dict[str, dict]) -> None:
    """`~stp` -> the names of the project's functions and methods that run one training step
    per call (`step`: an agent's `train_step`), for every module: a loop of another module
    that calls one back-propagates every iteration, whatever its own text mentions."""
    found = sorted({name.rsplit(".", 1)[-1] for summary in summaries.values()
                    for name, entry in (summary.get("functions") or {}).items()
                    if isinstance(entry, dict) and entry.get("step")})
    if found:
        for path in summaries:
            index.setdefault(path, {})["~stp"] = [{"path": "", "l": 0, "c": 0, "names": found}]


def _index_attributes_used_elsewhere(index: dict, summaries: Dict[str, dict], field: str, key: str) -> None:
    # (an entry `attr@Class` is a read through an object of that class: listed as it is, for
    # the storing class to tell whether it is its own)
    users: Dict[str, Dict[str, set]] = {}
    for path, summary in summaries.items():
        for entry in summary.get(field, ()):
            users.setdefault(entry.partition("@")[0], {}).setdefault(entry, set()).add(path)
    if not users:
        return
    for path, summary in summaries.items():
        attrs = sorted(entry for a in summary.get("sattrs", ()) for entry, readers in users.get(a, {}).items()
                       if readers - {path})
        if attrs:
            index.setdefault(path, {})[key] = [{"path": "", "l": 0, "c": 0, "attrs": attrs}]


def summary_inputs(project: Project, path: str, reads: Iterable[str]) -> str:
    """What a file's summary was computed from: the summaries of the modules it imports and
    read (not the call sites of other modules: summaries only look forward, along imports)."""
    path = os.path.abspath(path)
    deps = {p for p in reads if not p.startswith(SITE_MARK)} | set((project.summaries.get(path) or {}).get("imports", ()))
    return ",".join(f"{p}={project.digest(p)}" for p in sorted(deps) if p != path)


def entry_inputs(summaries: Dict[str, dict], path: str, entries: Iterable) -> str:
    """What a file's summary was computed from, entry by entry: the parts of other modules'
    summaries it read (`view.Reads.entries`), with their values in `summaries`. Finer than
    `summary_inputs`: a change elsewhere in an imported summary does not call for another
    round."""
    from torchleaklint.project.view import entry_value

    path = os.path.abspath(path)
    parts = [[p, section, key, entry_value(summaries.get(p), section, key)]
             for p, section, key in sorted(set(map(tuple, entries)), key=lambda e: (e[0], e[1], e[2] or ""))
             if p != path]
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def entries_of(view: ProjectView) -> List[list]:
    return [list(e) for e in getattr(view.reads, "entries", ())]


def fingerprint(project: Project, path: str, reads: Iterable[str]) -> str:
    return project.fingerprint(path, reads)


def _owner(resolver: Resolver, target: str) -> Tuple[Optional[str], str]:
    owner = target.rsplit(".", 1)[0]
    found = resolver.lookup(owner)
    if found is not None and found[0] == "class":
        return found[2], found[3]
    return None, ""


def _descendants(children, root) -> List[Tuple[str, str]]:
    out, stack, seen = [], [root], {root}
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in seen:
                seen.add(child)
                out.append(child)
                stack.append(child)
    return out


def summarize_file(path: str, raw: bytes, settings, view: Optional[ProjectView] = None, before=None,
                   partial: bool = False):
    """(summary, semantic model) of a file's content; (None, None) when it does not parse.
    `before(model)` runs on the model first (the check: so that its results are exactly
    those of a fresh model). `partial`: see `summary.summarize`."""
    from torchleaklint.engine import AnalysisTimeout, TIME_LIMIT_SECONDS, analysis_time_limit
    from torchleaklint.semantic import SemanticModel
    from torchleaklint.source import SourceError, decode

    view = view if view is not None else ProjectView(path)
    try:
        text, _ = decode(raw)
        text = _notebook_code(path, text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=path)
        model = SemanticModel(tree, text, path, settings, project=view)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None, None
    if before is not None:
        before(model)
    try:
        with analysis_time_limit(TIME_LIMIT_SECONDS):
            return summarize(model, modules.module_name(path) or "", partial), model
    except (RecursionError, MemoryError, AnalysisTimeout):
        _report_summary_failure(path)
        return None, None
    except Exception:  # a bug in summarizing must not hide the file's own findings
        _report_summary_failure(path)
        return None, None


def _report_summary_failure(path: str) -> None:
    """With `TORCHLEAKLINT_DEBUG` set, the traceback of a summary that could not be computed
    (the file is then checked with no summary of its own: importers see it as opaque)."""
    if os.environ.get("TORCHLEAKLINT_DEBUG"):
        import traceback

        sys.stderr.write(f"torchleaklint: no summary for {path}:\n{traceback.format_exc()}")


def _notebook_code(path: str, text: str) -> str:
    """What a notebook's analysis reads (its code cells as one module, `notebook.virtual_module`):
    its summary then records the imports of its cells, and its check waits for their
    summaries like a module's. Any other file: its text."""
    from torchleaklint.kinds import NOTEBOOK, file_kind
    from torchleaklint.notebook import NotebookError, is_notebook_json, read_notebook, virtual_module

    if file_kind(path, text) != NOTEBOOK or not is_notebook_json(text):
        return text
    try:
        return virtual_module(read_notebook(text)).text
    except NotebookError:
        return ""


def analyze_file(path: str, raw: bytes, settings, view: ProjectView, verbose: bool = False,
                 provisional: bool = False, partial: bool = False):
    """(diagnostics, summary, files whose summaries the check read) for one file.
    `provisional` (the first round, before any summary exists): a file importing first-party
    modules is only summarized (diagnostics None), as its check must wait for their summaries."""
    from torchleaklint.engine import lint_source

    found = []

    def check(model):
        if not (provisional and view.has_first_party_imports()):
            found.append(lint_source(raw, path, settings, verbose, project=view, model=model))

    summary, model = summarize_file(path, raw, settings, view, before=check, partial=partial)
    if found:
        diagnostics = found[0]
    elif model is not None:
        diagnostics = None
    else:
        diagnostics = lint_source(raw, path, settings, verbose, project=view)
    return diagnostics, summary, sorted(view.reads)


def enabled(files: List[str]) -> bool:
    """Project analysis needs files on disk that belong to a project."""
    return any(modules.project_root(os.path.dirname(os.path.abspath(p))) for p in files[:64])
