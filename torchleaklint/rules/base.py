"""The base class every rule derives from, and the registry that finds them."""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import ClassVar, Dict, Iterable, List, Tuple

from torchleaklint.diagnostics import WARNING, Finding, Step


class Rule:
    """A rule: code, documentation (the class docstring, in ruff's shape) and a check.

    `tokens` is the prefilter: a file whose text contains none of them cannot trigger the
    rule and is not analyzed for it (most files of a large repository are skipped unparsed).
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    fix_title: ClassVar[str] = ""
    fix_safety: ClassVar[str] = ""  # "safe", "unsafe" or "" (no fix)
    tokens: ClassVar[Tuple[str, ...]] = ()
    severity: ClassVar[str] = WARNING  # the default; a finding may say otherwise
    options: ClassVar[Dict[str, object]] = {}
    # Which kinds of file the rule reads: "python", or environment kinds (see
    # torchleaklint.environment); `env_tokens` prefilters environment files as `tokens` does Python.
    kinds: ClassVar[Tuple[str, ...]] = ("python",)
    env_tokens: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, settings=None):
        self.settings = settings

    def option(self, key):
        if self.settings is not None:
            value = self.settings.rule_options.get(self.code, {}).get(key)
            if value is not None:
                return value
        return self.options[key]

    # a rule whose facts can come from a caller's values (a graph handed in): a file other
    # modules of the project call into is checked even when its text has none of `tokens`
    follows_callers: ClassVar[bool] = False

    def applies_to(self, source: str) -> bool:
        return any(token in source for token in self.tokens)

    def applies_to_project(self, project, source: str = "") -> bool:
        """A second chance for a file `applies_to` rejects: what other modules of the project
        say about it (their summaries, through the file's `ProjectView`) can make it a target.
        A rule that `follows_callers` checks every module other modules call into."""
        return self.follows_callers and project is not None and project.has_external_callers()

    def check(self, model) -> Iterable[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError

    def applies_to_environment(self, kind: str, text: str) -> bool:
        return any(token in text for token in self.env_tokens)

    def check_environment(self, env) -> Iterable:  # environment rules: EnvFinding objects
        return ()

    def finding(self, node, message, fix=None, severity=None, evidence=(), superseded_by=()) -> Finding:
        """`evidence`: (node, message) pairs or `Step`s, the chain of facts in order;
        `superseded_by`: rules whose finding at the same statement replaces this one."""
        steps = tuple(item if isinstance(item, Step) else Step(*item) for item in evidence if item is not None)
        return Finding(node=node, message=message, fix=fix, code=self.code,
                       severity=severity or self.severity, evidence=steps, superseded_by=tuple(superseded_by))

    @classmethod
    def documentation(cls) -> str:
        doc = (cls.__doc__ or "").strip("\n")
        lines = doc.splitlines()
        indent = min((len(l) - len(l.lstrip()) for l in lines[1:] if l.strip()), default=0)
        body = "\n".join([lines[0].strip()] + [l[indent:] for l in lines[1:]]) if lines else ""
        return f"# {cls.name} ({cls.code})\n\n{body}\n"


_RULE_MODULE = re.compile(r"^tll\d{3}_\w+$")
_registry: Dict[str, type] = {}


def all_rules() -> Dict[str, type]:
    """Every rule class, by code, discovered from `torchleaklint/rules/tllNNN_*.py`."""
    if not _registry:
        import torchleaklint.rules as package

        for info in pkgutil.iter_modules(package.__path__):
            if _RULE_MODULE.match(info.name):
                module = importlib.import_module(f"{package.__name__}.{info.name}")
                for obj in vars(module).values():
                    if isinstance(obj, type) and issubclass(obj, Rule) and obj.code:
                        _registry[obj.code] = obj
    return dict(sorted(_registry.items()))


def rule_codes() -> List[str]:
    """The rule codes, read from the module names (`tll001_*.py` is TLL001) without
    importing the rules: validating a configuration must not load the semantic layer."""
    import torchleaklint.rules as package

    codes = {info.name[:6].upper() for info in pkgutil.iter_modules(package.__path__)
             if _RULE_MODULE.match(info.name)}
    return sorted(codes | set(_registry))  # plus rules registered in this process
