"""What one file sees of its project: first-party imports resolved, summaries of the
modules it imports, and the call sites other modules have of its functions.

`ProjectView` is what the semantic model gets as `project`. Everything it answers comes
from summaries (plain data): no other module's tree is ever loaded while checking a file.
It records which summaries it read (`reads`), so a cached result can be reused exactly when
those summaries are unchanged (`project.fingerprint`).
"""

from __future__ import annotations

import ast
import os
from typing import Dict, List, Optional, Set, Tuple

from torchleaklint.project import modules

MAX_HOPS = 8


# What a check asked of the call sites other modules have of its module, recorded among
# its reads (no path starts with NUL): `SITE_MARK + key` for the sites under `key`,
# `SITE_MARK + CALLERS` for "does any other module call into this one"
SITE_MARK = "\0site:"
CALLERS = "\0callers"
OWNERS = "~own:"  # (after SITE_MARK: the classes of the project defining a method name)
SUBMODULE = "."  # (before an attribute name among the owners: the module classes storing a submodule there)


class Reads(set):
    """The files whose summaries a view read (the set), and which entries of them
    (`entries`: (file, section, key); section "*" is the summary's presence, key None a
    whole section): what a summary computed through the view depends on. The set also
    holds the call-site keys the view was asked about (`SITE_MARK`), so that a check's
    fingerprint covers the call sites it read, not the others."""

    def __init__(self):
        super().__init__()
        self.entries: Set[tuple] = set()


def entry_value(summary: Optional[dict], section: str, key: Optional[str]):
    if summary is None:
        return None
    if section == "*":
        return 1
    part = summary.get(section)
    if key is None or not isinstance(part, dict):
        return part
    return part.get(key)


class Resolver:
    """Qualified first-party names -> the summary entry they denote, as seen from `importer`."""

    def __init__(self, importer: str, summaries: Dict[str, dict], reads: Optional[Set[str]] = None):
        self.importer = importer
        self.summaries = summaries
        self.reads = reads

    def split(self, qual: str) -> Tuple[Optional[str], str, str]:
        """(file, module name, rest) for the longest first-party module prefix of `qual`."""
        parts = qual.split(".")
        for n in range(len(parts), 0, -1):
            name = ".".join(parts[:n])
            path = modules.find_module(name, self.importer)
            if path is not None:
                return path, name, ".".join(parts[n:])
        return None, "", ""

    def summary(self, path: str) -> Optional[dict]:
        found = self.summaries.get(path)
        if found is not None and self.reads is not None:
            self.reads.add(path)
        self.note(path, "*")  # absent too: its appearance changes what was computed
        return found

    def note(self, path: str, section: str, key: Optional[str] = None) -> None:
        entries = getattr(self.reads, "entries", None)
        if entries is not None:
            entries.add((path, section, key))

    def lookup(self, qual: str, hops: int = 0):
        """("function", entry, path, objpath) / ("class", entry, path, name) /
        ("module", None, path, "") / ("alias", qual, None, "") or None (opaque)."""
        path, name, rest = self.split(qual)
        if path is None or hops > MAX_HOPS:
            return None
        if not rest:
            shadowing = self._package_binding(qual, hops)
            return shadowing if shadowing is not None else ("module", None, path, "")
        summary = self.summary(path)
        if summary is None:
            return None
        head, _, tail = rest.partition(".")
        kind = summary["defs"].get(head)
        self.note(path, "defs", head)
        if kind == "function":
            if tail:
                return None
            self.note(path, "functions", head)
            return ("function", summary["functions"].get(head), path, head)
        if kind == "class":
            if not tail:
                self.note(path, "classes", head)
                return ("class", summary["classes"].get(head), path, head)
            if "." in tail:
                return None
            return self.method(path, head, tail, hops)
        target = self.alias(path, summary, head, hops)
        if target is None:
            return None
        if target.split(".")[0] in modules.BUILTIN_KNOWLEDGE or not self.is_first_party(target):
            return ("alias", target + ("." + tail if tail else ""), None, "")
        return Resolver(path, self.summaries, self.reads).lookup(target + ("." + tail if tail else ""), hops + 1)

    def _package_binding(self, qual: str, hops: int):
        """`pkg.train` where `pkg/__init__.py` binds `train` itself (`from .train import train`,
        run after the submodule's import sets the attribute): `from pkg import train` gives
        the package's binding, the function, not the submodule."""
        package, _, last = qual.rpartition(".")
        if not package:
            return None
        path = modules.find_module(package, self.importer)
        if path is None or os.path.basename(path) != "__init__.py":
            return None
        summary = self.summary(path)
        if summary is None:
            return None
        kind = summary["defs"].get(last)
        if kind == "function":
            self.note(path, "functions", last)
            return ("function", summary["functions"].get(last), path, last)
        if kind == "class":
            self.note(path, "classes", last)
            return ("class", summary["classes"].get(last), path, last)
        target = summary["aliases"].get(last)
        self.note(path, "aliases", last)
        if target is None or target == qual:
            return None
        if target.split(".")[0] in modules.BUILTIN_KNOWLEDGE or not self.is_first_party(target):
            return ("alias", target, None, "")
        return Resolver(path, self.summaries, self.reads).lookup(target, hops + 1)

    def alias(self, path: str, summary: dict, name: str, hops: int = 0) -> Optional[str]:
        """The qualified name a module-level import name of module `path` stands for: its own
        imports first, then what its star imports bind (`from utils.dist import *`)."""
        target = summary["aliases"].get(name)
        self.note(path, "aliases", name)
        if target is not None or not summary.get("stars"):
            return target
        return self._through_stars(path, summary, name, hops, {path})

    def exported(self, path: str, name: str, hops: int = 0, seen: Optional[Set[str]] = None) -> Optional[str]:
        """What `from <module path> import *` binds `name` to, or None."""
        seen = seen if seen is not None else set()
        summary = self.summary(path)
        if summary is None or hops > MAX_HOPS or path in seen:
            return None
        seen.add(path)
        qual = summary.get("exports", {}).get(name)
        self.note(path, "exports", name)
        if qual is not None or summary.get("all") is not None:
            return qual
        return self._through_stars(path, summary, name, hops, seen)

    def _through_stars(self, path: str, summary: dict, name: str, hops: int, seen: Set[str]) -> Optional[str]:
        self.note(path, "stars")
        for module in summary.get("stars", ()):
            imported = modules.find_module(module, path)
            found = self.exported(imported, name, hops + 1, seen) if imported else None
            if found is not None:
                return found
        return None

    def star_exports(self, path: str, hops: int = 0, seen: Optional[Set[str]] = None,
                     imported_as: str = "") -> List[Tuple[str, str]]:
        """Every (name, qualified name) `from <module path> import *` binds, following the
        module's own star imports when it has no `__all__` (earlier pairs win). A module
        outside any importable package (`ogbn-products/utils.py`, imported as `utils` by the
        script beside it) has no name of its own: its definitions are named after
        `imported_as`, the name the star import used."""
        seen = seen if seen is not None else set()
        summary = self.summary(path)
        if summary is None or hops > MAX_HOPS or path in seen:
            return []
        seen.add(path)
        self.note(path, "exports")
        out = [(name, f"{imported_as}{qual}" if qual.startswith(".") and imported_as else qual)
               for name, qual in summary.get("exports", {}).items()]
        if summary.get("all") is None and summary.get("stars"):
            self.note(path, "stars")
            for module in summary["stars"]:
                imported = modules.find_module(module, path)
                if imported:
                    out.extend(self.star_exports(imported, hops + 1, seen, module))
        return out

    def method(self, path: str, cls: str, name: str, hops: int = 0):
        """A method of a class, following its bases across modules."""
        summary = self.summary(path)
        if summary is None or hops > MAX_HOPS:
            return None
        entry = summary["classes"].get(cls)
        self.note(path, "classes", cls)
        if entry is None:
            return None
        if name in entry["methods"]:
            self.note(path, "functions", f"{cls}.{name}")
            return ("function", summary["functions"].get(f"{cls}.{name}"), path, f"{cls}.{name}")
        for base in entry["bases"]:
            found = self.base_class(path, base, hops + 1)
            if found is not None:
                hit = self.method(found[0], found[1], name, hops + 1)
                if hit is not None:
                    return hit
        return None

    def base_class(self, path: str, base: str, hops: int = 0) -> Optional[Tuple[str, str]]:
        """(file, class name) of a base class written `base` in module `path`."""
        summary = self.summary(path)
        if summary is None:
            return None
        self.note(path, "defs", base)
        if "." not in base and summary["defs"].get(base) == "class":
            return path, base
        found = Resolver(path, self.summaries, self.reads).lookup(base, hops)
        if found is not None and found[0] == "class":
            return found[2], found[3]
        return None

    def class_bases(self, path: str, cls: str, hops: int = 0) -> List[str]:
        """Qualified names of every base of a class, transitively across modules."""
        summary = self.summary(path)
        entry = summary["classes"].get(cls) if summary else None
        self.note(path, "classes", cls)
        if entry is None or hops > MAX_HOPS:
            return []
        out = []
        for base in entry["bases"]:
            out.append(base)
            found = self.base_class(path, base, hops + 1)
            if found is not None and found != (path, cls):
                out.extend(self.class_bases(found[0], found[1], hops + 1))
        return out

    def is_first_party(self, qual: str) -> bool:
        return self.split(qual)[0] is not None


class ProjectView:
    """The project as one file sees it (the semantic model's `project`)."""

    def __init__(self, path: str, summaries: Optional[Dict[str, dict]] = None,
                 sites: Optional[Dict[str, List[dict]]] = None, aliasing: Optional[Dict[str, Set[str]]] = None,
                 owners: Optional[Dict[str, dict]] = None):
        self.path = os.path.abspath(path)
        self.summaries = summaries if summaries is not None else {}
        self.sites = sites or {}
        self.owners = owners or {}  # method name -> the project's classes defining it
        self.aliasing = aliasing if aliasing is not None else {}  # names_aliasing's answers, per project
        self.reads: Set[str] = Reads()
        self.resolver = Resolver(self.path, self.summaries, self.reads)
        self._imported: Set[str] = set()
        self.stars: List[str] = []  # first-party modules star-imported, in order
        self.star_bound: Dict[str, str] = {}  # names those star imports bound
        self._first_party: Dict[str, bool] = {}
        # the function and method names of the run (project.prescan), when known: a call of
        # any other name is no call site of the run's functions (see summary._calls)
        self.callable_names = None

    # ----------------------------------------------------------- imports
    def extend_imports(self, table, node: ast.AST) -> None:
        """Add what the per-file import table cannot know: relative imports, `import *` of a
        first-party module, and which first-party files are imported."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                self._note(alias.name)
            return
        if not isinstance(node, ast.ImportFrom):
            return
        module = node.module
        if node.level:
            module = modules.resolve_relative(self.path, node.module, node.level)
            if module is None:
                return
        if module is None:
            return
        self._note(module)
        first_party = modules.find_module(module, self.path) is not None
        for alias in node.names:
            if alias.name == "*":
                self._star(table, module)
                continue
            local = alias.asname or alias.name
            if node.level:
                table.aliases[local] = f"{module}.{alias.name}"
            self._note(f"{module}.{alias.name}", quiet=True)
            if first_party:
                # a name another module of the project re-exports from a library
                # (`from .utils import empty_cache`, which utils has from torch.cuda): the
                # table gets what it finally stands for
                found = self.resolver.lookup(f"{module}.{alias.name}")
                if found is not None and found[0] == "alias":
                    table.aliases[local] = found[1]

    def note_import(self, module: str) -> None:
        """A module imported by a call (`importlib.import_module("pkg.mod")`), not a statement."""
        self._note(module)

    def _note(self, module: str, quiet: bool = False) -> None:
        path = modules.find_module(module, self.path)
        if path is not None and path != self.path:
            self._imported.add(path)

    def _star(self, table, module: str) -> None:
        """`from <first-party module> import *`: the names it binds join the file's import
        table (the file's own analysis needs them), but the file's summary keeps only a
        reference to the module (`stars`), not a copy of its names, so that chains of star
        imports do not make every summary carry the names of its whole chain."""
        path = modules.find_module(module, self.path)
        if path is None:
            return
        self.stars.append(module)
        for name, qual in self.resolver.star_exports(path, imported_as=module):
            if name not in table.aliases:
                table.aliases[name] = qual
                self.star_bound[name] = qual

    def own_aliases(self, aliases: Dict[str, str]) -> Dict[str, str]:
        """The import table without what star imports bound (those are in `stars`)."""
        if not self.star_bound:
            return dict(aliases)
        return {name: qual for name, qual in aliases.items() if self.star_bound.get(name) != qual}

    def imported_files(self) -> Set[str]:
        return set(self._imported)

    def has_first_party_imports(self) -> bool:
        return bool(self._imported)

    def is_first_party(self, qual: str) -> bool:
        found = self._first_party.get(qual)
        if found is None:
            found = self._first_party[qual] = self.resolver.is_first_party(qual)
        return found

    # ----------------------------------------------------------- summaries
    def imported_summary(self, qual: str):
        """What a first-party qualified name denotes: ("function", entry, file, objpath),
        ("class", entry, file, name), ("alias", qual, None, ""), or None (opaque)."""
        if not self.is_first_party(qual):
            return None
        return self.resolver.lookup(qual)

    def method_of(self, class_qual: str, name: str):
        found = self.imported_summary(class_qual)
        if found is None or found[0] != "class":
            return None
        return self.resolver.method(found[2], found[3], name)

    def class_bases(self, class_qual: str) -> List[str]:
        found = self.imported_summary(class_qual)
        if found is None or found[0] != "class":
            return []
        return self.resolver.class_bases(found[2], found[3])

    def class_kind(self, class_qual: str) -> str:
        found = self.imported_summary(class_qual)
        return (found[1] or {}).get("kind", "") if found and found[0] == "class" else ""

    def local_value(self, value):
        """A value another module passes in, with this module's own classes named as they
        are here (`policy.Policy` -> `Policy` inside policy.py)."""
        name = value.name
        prefix = (modules.module_name(self.path) or "\0") + "."
        if name and name.startswith(prefix) and "." not in name[len(prefix):]:
            from dataclasses import replace

            return replace(value, name=name[len(prefix):])
        return value

    def _sites_under(self, key: str) -> List[dict]:
        self.reads.add(SITE_MARK + key)
        return self.sites.get(key, [])

    def external_sites(self, objpath: str) -> List[dict]:
        """Call sites in other modules of this module's function or method `objpath`."""
        return self._sites_under(objpath)

    def inherited_method_sites(self, cls: str, method: str) -> List[dict]:
        """Call sites in other modules of method `method` that this module's class `cls`
        inherits from a base class elsewhere, made on objects of `cls` (`plant.detach_state()`)."""
        return self._sites_under(f"~inh:{cls}.{method}")

    def overrides(self, objpath: str) -> List[dict]:
        """What the overrides of this module's abstract method `objpath` (`Cls.m`) in
        subclasses of other modules return (`ret`, encoded)."""
        return self._sites_under(f"~ovr:{objpath}")

    def names_aliasing(self, key: str, predicate) -> Set[str]:
        """The names the project's modules bind, by import, to a library function `predicate`
        accepts (`release_cached` of `from torch.cuda import empty_cache as release_cached` in
        utils): a module that imports one of them calls that function under another name.
        Computed once per `key` for the project (`aliasing`, which its views share)."""
        found = self.aliasing.get(key)
        if found is None:
            found = self.aliasing[key] = {name for summary in self.summaries.values() if isinstance(summary, dict)
                                          for name, qual in summary.get("aliases", {}).items() if predicate(qual)}
        return found

    def training_step_names(self) -> Set[str]:
        """The names of the project's functions and methods that run one training step per call
        (their summaries' `step`: an agent's `train_step`): a module that calls one of them in
        a loop back-propagates every iteration, whatever its own text mentions."""
        return {name for site in self._sites_under("~stp") for name in site.get("names", ())}

    def has_external_callers(self) -> bool:
        """Do other modules of the project call into this one? Then its functions may be
        handed graphs by them, whatever its own text mentions (a meter that never imports
        torch)."""
        self.reads.add(SITE_MARK + CALLERS)
        return has_external_callers(self.sites)

    def attribute_back_propagated_elsewhere(self, attr: str, owner: Optional[str] = None) -> bool:
        """Is `.<attr>`, which this module stores on `self` (in class `owner`, when given), read
        by another module's backward? A read typed to another class does not count
        (`SemanticModel._read_attribute`)."""
        from torchleaklint.semantic.model import _reads_attribute_of

        return any(_reads_attribute_of(set(site.get("attrs", ())), attr, owner) for site in self._sites_under("~bwa"))

    def attribute_stored_from_outside(self, attr: str) -> bool:
        """Is `.<attr>`, which this module stores on `self`, stored in a loop on objects by
        another module (`rnn.hidden = rnn.init_hidden(batch)` before each batch of the training
        script)?"""
        return any(attr in site.get("attrs", ()) for site in self._sites_under("~fst"))

    def differentiating_forwards(self) -> bool:
        """Does some module class of the project compute gradients in its `forward`?"""
        return bool(self._sites_under("~gfw"))

    def method_owners(self, method: str) -> List[str]:
        """The module classes of the project (qualified names) defining `method`, for a method
        this module calls on receivers of unknown class."""
        return list(self._owners_of(method).get("owners", ()))

    def class_owners(self, method: str) -> List[str]:
        """Every class of the project (qualified names: module classes and the others, a
        rollout storage, a simulated plant) defining `method`, for a method this module calls
        on some receiver other than `self`."""
        found = self._owners_of(method)
        return sorted(list(found.get("owners", ())) + list(found.get("others", ())))

    def submodule_owners(self, attr: str) -> List[str]:
        """The module classes of the project whose `__init__` stores a trainable submodule in
        `self.<attr>` (`self.encoder = Encoder(vocab)`): what `model.encoder(src)` calls on a
        model of unknown class, when no class of the project defines a method of that name."""
        return list(self._owners_of(SUBMODULE + attr).get("owners", ()))

    def subclassed_owners(self, method: str) -> List[str]:
        """The classes of the project defining `method` that other classes of the project
        inherit from: an object calling it may be of a subclass, whose other methods differ."""
        return list(self._owners_of(method).get("sub", ()))

    def owner_descendants(self, method: str, owner: str) -> List[str]:
        """The classes of the project inheriting from `owner`, one of those defining `method`."""
        return list(self._owners_of(method).get("sub", {}).get(owner, ()))

    def _owners_of(self, method: str) -> dict:
        self.reads.add(SITE_MARK + OWNERS + method)  # (part of the file's fingerprint)
        return self.owners.get(method) or {}

    def defined_here(self, qual: str) -> bool:
        """Is `qual` (`pkg.mod.Cls`) a top-level name of this very module?"""
        own = (modules.module_name(self.path) or "\0") + "."
        return qual.startswith(own) and "." not in qual[len(own):]

    def named_calls(self, method: str) -> Tuple[int, int, int]:
        """(calls, calls under no-grad, references as a value) other modules make of the
        method name `method` on receivers of unknown class."""
        found = self._sites_under(f"~{method}")
        return (found[0]["n"], found[0]["ng"], found[0].get("ref", 0)) if found else (0, 0, 0)

    def named_calls_passed_on(self, method: str) -> int:
        """How many of `named_calls(method)` a holder's method of the same name makes on a part
        it holds (`def reset(self): self.memory_network.reset()`)."""
        found = self._sites_under(f"~{method}")
        return found[0].get("po", 0) if found else 0

    def definition_label(self, path: str, line: int) -> str:
        return f"{os.path.relpath(path, os.path.dirname(self.path))}:{line}"

    def label(self, site: dict) -> str:
        """`train.py:15` for a call site in another file, relative to this file's directory."""
        rel = os.path.relpath(site["path"], os.path.dirname(self.path))
        return f"{rel}:{site['l']}"


def has_external_callers(sites: Dict[str, List[dict]]) -> bool:
    """Do the call sites of a module (`Project.sites()` of its file) include calls into it?"""
    # also an abstract method another module overrides: what it returns flows in here
    return any(not key.startswith("~") or key.startswith("~ovr:") for key in sites)
