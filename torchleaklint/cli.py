"""Command line: `torchleaklint [OPTIONS] PATH...` and `torchleaklint rule CODE`.

Exit status: 0 no problems, 1 problems found (or, with --diff, something to fix),
2 usage, configuration or internal error.
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional, Tuple

import click

from torchleaklint import __version__
from torchleaklint.config import ConfigError, load_settings, validate_selector, with_overrides
from torchleaklint.discovery import PathError, discover
from torchleaklint.engine import INTERNAL_ERROR
from torchleaklint.output import FORMATS, renderer
from torchleaklint.rules import all_rules

EXIT_CLEAN, EXIT_FOUND, EXIT_ERROR = 0, 1, 2


class DefaultCommandGroup(click.Group):
    """`torchleaklint src/` means `torchleaklint check src/`, as flake8 users expect."""

    def parse_args(self, ctx, args):
        if not args or args[0] not in self.commands:
            args = ["check"] + list(args)
        return super().parse_args(ctx, args)


@click.group(cls=DefaultCommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """torchleaklint: find PyTorch memory anti-patterns (autograd-graph leaks, empty_cache
    in loops, large objects in Ray Tune configs) before the job runs."""


def _codes(value: Optional[str]) -> Optional[Tuple[str, ...]]:
    if value is None:
        return None
    return tuple(c.strip().upper() for c in value.split(",") if c.strip())


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", help="Comma-separated rule codes or prefixes to enable (default: all).")
@click.option("--ignore", help="Comma-separated rule codes or prefixes to disable.")
@click.option("--extend-select", help="Codes to add to the selection.")
@click.option("--exclude", help="Comma-separated glob patterns to exclude (replaces the defaults).")
@click.option("--extend-exclude", help="Comma-separated glob patterns to exclude, in addition.")
@click.option("--per-step-methods", help="Comma-separated method names/globs that run once per step.")
@click.option("--config", "config_path", type=click.Path(), help="Configuration file (pyproject.toml).")
@click.option("--output-format", type=click.Choice(FORMATS), default="concise", show_default=True)
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (and show) fixes that may change behavior.")
@click.option("--diff", is_flag=True, help="Print the diff --fix would apply; write nothing.")
@click.option("--show-fixes", is_flag=True, help="List the fixes applied.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when problems are found.")
@click.option("--force-exclude", is_flag=True, default=None,
              help="Apply excludes to files named explicitly too (for pre-commit).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Processes to lint with (default: the number of CPUs).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False), envvar="TORCHLEAKLINT_CACHE_DIR",
              help="Cache directory (default: .torchleaklint_cache in the project root).")
@click.option("--quiet", "-q", is_flag=True, help="No summary line.")
@click.option("--verbose", "-v", is_flag=True, help="Tracebacks for internal errors on stderr.")
@click.option("--version", is_flag=True, help="Print the version and exit.")
def check(paths, select, ignore, extend_select, exclude, extend_exclude, per_step_methods, config_path,
          output_format, fix, unsafe_fixes, diff, show_fixes, exit_zero, force_exclude, jobs, no_cache,
          cache_dir, quiet, verbose, version) -> None:
    """Lint PATHS (files or directories; default: the current directory)."""
    if version:
        click.echo(f"torchleaklint {__version__}")
        sys.exit(EXIT_CLEAN)
    try:
        settings = load_settings(config_path, os.getcwd())
        known = list(all_rules()) + ["TLL9"]
        for option, value in (("--select", select), ("--ignore", ignore), ("--extend-select", extend_select)):
            for code in _codes(value) or ():
                validate_selector(code, known, option)
        overrides = dict(select=_codes(select), ignore=_codes(ignore), force_exclude=force_exclude)
        if extend_select:
            overrides["select"] = (overrides["select"] or settings.select) + _codes(extend_select)
        if exclude is not None:
            overrides["exclude"] = tuple(p.strip() for p in exclude.split(",") if p.strip())
        if extend_exclude:
            overrides["extend_exclude"] = settings.extend_exclude + tuple(p.strip() for p in extend_exclude.split(","))
        if per_step_methods:
            overrides["per_step_methods"] = tuple(p.strip() for p in per_step_methods.split(",") if p.strip())
        settings = with_overrides(settings, **overrides)
        files = discover(list(paths) or ["."], settings)
    except (ConfigError, PathError) as exc:
        click.echo(f"torchleaklint: error: {exc}", err=True)
        sys.exit(EXIT_ERROR)

    from torchleaklint.runner import lint_paths, open_cache

    cache = None if no_cache else open_cache(settings, cache_dir)
    results = list(lint_paths(files, settings, jobs=jobs, cache=cache, verbose=verbose))
    if fix or diff:
        from torchleaklint.fixes import apply_fixes_to_results

        results, fixed_count, changed = apply_fixes_to_results(
            results, settings, unsafe=unsafe_fixes, write=not diff, show=show_fixes, verbose=verbose)
        if diff:
            sys.exit(EXIT_FOUND if changed and not exit_zero else EXIT_CLEAN)
    diagnostics = [d for _, found in results for d in found]
    context = {"unsafe_fixes": unsafe_fixes, "settings": settings}
    sys.stdout.write(renderer(output_format)(diagnostics, context))
    sys.stdout.flush()
    if not quiet and output_format in ("concise", "full", "grouped"):
        _summary(diagnostics, len(files))
    if any(d.code == INTERNAL_ERROR for d in diagnostics):
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FOUND if diagnostics and not exit_zero else EXIT_CLEAN)


def _summary(diagnostics, file_count: int) -> None:
    if not diagnostics:
        click.echo(f"All clear: no problems in {file_count} file{'s' if file_count != 1 else ''}.", err=True)
        return
    files = len({d.path for d in diagnostics})
    fixable = sum(1 for d in diagnostics if d.fix is not None and d.fix.safety == "safe")
    n = len(diagnostics)
    click.echo(f"Found {n} problem{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}.", err=True)
    if fixable:
        click.echo(f"[*] {fixable} fixable with the `--fix` option.", err=True)


@main.command("rule")
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule with its summary.")
def rule(code: Optional[str], show_all: bool) -> None:
    """Show the documentation of a rule (`torchleaklint rule TLL001`)."""
    rules = all_rules()
    if show_all or code is None:
        for rule_code, cls in rules.items():
            fix = {"safe": "fix", "unsafe": "unsafe fix"}.get(cls.fix_safety, "")
            click.echo(f"{rule_code}  {cls.name:<40} {fix:<11} {cls.summary}")
        return
    cls = rules.get(code.upper())
    if cls is None:
        click.echo(f"torchleaklint: error: unknown rule `{code}` (known: {', '.join(rules)})", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(cls.documentation())


if __name__ == "__main__":  # pragma: no cover
    main()
