"""Command line: `torchleaklint [OPTIONS] PATH...` and `torchleaklint rule CODE`.

Exit status: 0 no problems, 1 problems found (or, with --diff, something to fix),
2 usage, configuration or internal error.
"""

from __future__ import annotations

import os
import sys
from typing import Optional, Tuple

import click

from torchleaklint import __version__
from torchleaklint.config import ENGINE_CODES, ConfigError, load_settings, validate_selector, with_overrides
from torchleaklint.discovery import PathError, discover
from torchleaklint.source import INTERNAL_ERROR
from torchleaklint.output import FORMATS, renderer
from torchleaklint.rules.base import rule_codes

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
@click.option("--respect-gitignore/--no-respect-gitignore", default=None,
              help="Skip files ignored by git (default: on).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Processes to lint with (default: the number of CPUs).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option("--project-analysis/--no-project-analysis", default=None,
              help="Follow imports, calls and classes across the modules of the project (default: on).")
@click.option("--cache-dir", type=click.Path(file_okay=False), envvar="TORCHLEAKLINT_CACHE_DIR",
              help="Cache directory (default: .torchleaklint_cache in the project root).")
@click.option("--quiet", "-q", is_flag=True, help="No summary line.")
@click.option("--verbose", "-v", is_flag=True, help="Tracebacks for internal errors on stderr.")
@click.option("--stdin-filename", help="With `-` as the path: lint standard input as if it were this file.")
@click.option("--statistics", is_flag=True, help="Count the findings of each rule instead of listing them.")
@click.option("--add-noqa", is_flag=True, help="Append `# noqa: CODE` to every line with a finding.")
@click.option("--show-settings", is_flag=True, help="Print the effective settings and the configuration file, then exit.")
@click.option("--version", is_flag=True, help="Print the version and exit.")
def check(paths, select, ignore, extend_select, exclude, extend_exclude, per_step_methods, config_path,
          output_format, fix, unsafe_fixes, diff, show_fixes, exit_zero, force_exclude, respect_gitignore,
          jobs, no_cache, cache_dir, quiet, verbose, stdin_filename, statistics, add_noqa, show_settings,
          version, project_analysis=None) -> None:
    """Lint PATHS (files or directories; default: the current directory; `-`: standard input)."""
    _never_fail_on_encoding(sys.stdout, sys.stderr)
    if version:
        click.echo(f"torchleaklint {__version__}")
        sys.exit(EXIT_CLEAN)
    reading_stdin = "-" in paths or (stdin_filename is not None and not paths)
    if reading_stdin and len(paths) > 1:
        raise click.UsageError("`-` (standard input) cannot be combined with other paths")
    if reading_stdin and diff:
        raise click.UsageError("--diff is not supported with standard input; use --fix to get the fixed source")
    if add_noqa and (fix or diff or reading_stdin):
        raise click.UsageError("--add-noqa cannot be combined with --fix, --diff or standard input")
    try:
        settings = load_settings(config_path, os.getcwd())
        known = rule_codes() + list(ENGINE_CODES)
        for option, value in (("--select", select), ("--ignore", ignore), ("--extend-select", extend_select)):
            for code in _codes(value) or ():
                validate_selector(code, known, option)
        overrides = dict(select=_codes(select), ignore=_codes(ignore), force_exclude=force_exclude,
                         respect_gitignore=respect_gitignore)
        if extend_select:
            overrides["select"] = (overrides["select"] or settings.select) + _codes(extend_select)
        if exclude is not None:
            overrides["exclude"] = tuple(p.strip() for p in exclude.split(",") if p.strip())
        if extend_exclude:
            overrides["extend_exclude"] = settings.extend_exclude + tuple(p.strip() for p in extend_exclude.split(","))
        if project_analysis is not None:
            overrides["project_analysis"] = project_analysis
        if per_step_methods:
            overrides["per_step_methods"] = tuple(p.strip() for p in per_step_methods.split(",") if p.strip())
        settings = with_overrides(settings, **overrides)
        if show_settings:
            from torchleaklint.show_settings import describe

            click.echo(describe(settings), nl=False)
            sys.exit(EXIT_CLEAN)
        if reading_stdin:
            _check_stdin(stdin_filename, settings, output_format, fix, unsafe_fixes, exit_zero,
                         statistics, quiet, verbose)
        files = discover(list(paths) or ["."], settings)
    except (ConfigError, PathError) as exc:
        click.echo(f"torchleaklint: error: {exc}", err=True)
        sys.exit(EXIT_ERROR)

    from torchleaklint.runner import lint_paths, open_cache

    cache = None if no_cache else open_cache(settings, cache_dir)
    results = list(lint_paths(files, settings, jobs=jobs, cache=cache, verbose=verbose))
    fixed_count = 0
    if fix or diff:
        from torchleaklint.fixes import apply_fixes_to_results

        results, fixed_count, changed = apply_fixes_to_results(
            results, settings, unsafe=unsafe_fixes, write=not diff, show=show_fixes, verbose=verbose)
        if diff:
            sys.exit(EXIT_FOUND if changed and not exit_zero else EXIT_CLEAN)
    diagnostics = [d for _, found in results for d in found]
    if add_noqa:
        _add_noqa(diagnostics)
    context = {"unsafe_fixes": unsafe_fixes, "settings": settings, "fixed": fixed_count}
    _report(diagnostics, len(files), output_format, context, statistics, quiet, exit_zero, sys.stdout)


def _report(diagnostics, file_count: int, output_format: str, context, statistics: bool, quiet: bool,
            exit_zero: bool, stream) -> None:
    """Write the findings (or their statistics) to `stream` and exit with the run's status."""
    if statistics:
        from torchleaklint.output.statistics import render as render_statistics

        stream.write(render_statistics(diagnostics, output_format))
    else:
        stream.write(renderer(output_format)(diagnostics, context))
    stream.flush()
    if not quiet and output_format in ("concise", "full", "grouped"):
        _summary(diagnostics, file_count, context.get("fixed", 0), context.get("unsafe_fixes", False))
    if any(d.code == INTERNAL_ERROR for d in diagnostics):
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FOUND if diagnostics and not exit_zero else EXIT_CLEAN)


def _check_stdin(filename, settings, output_format, fix, unsafe_fixes, exit_zero, statistics, quiet,
                 verbose) -> None:
    """Lint standard input; with --fix, the fixed source goes to stdout and findings to stderr."""
    from torchleaklint.stdin import StdinFixUnavailable, decoded, fix_stdin, lint_stdin

    raw = sys.stdin.buffer.read()
    path, diagnostics = lint_stdin(raw, filename, settings, verbose)
    source = decoded(raw)
    context = {"unsafe_fixes": unsafe_fixes, "settings": settings,
               "sources": {path: source[0]} if source else {}}
    if not fix:
        _report(diagnostics, 1, output_format, context, statistics, quiet, exit_zero, sys.stdout)
    fixed = raw
    if source is not None and any(d.fix is not None for d in diagnostics):  # an excluded name has none
        try:
            text, diagnostics = fix_stdin(source[0], path, settings, unsafe_fixes, diagnostics)
        except StdinFixUnavailable as exc:
            click.echo(f"torchleaklint: error: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        fixed = text.encode(source[1])
        context["sources"] = {path: text}
    sys.stdout.buffer.write(fixed)
    sys.stdout.flush()
    _report(diagnostics, 1, output_format, context, statistics, quiet, exit_zero, sys.stderr)


def _add_noqa(diagnostics) -> None:
    from torchleaklint.add_noqa import add_noqa

    changed = add_noqa(diagnostics)
    click.echo(f"Added {changed} noqa directive{'s' if changed != 1 else ''}.", err=True)
    sys.exit(EXIT_ERROR if any(d.code == INTERNAL_ERROR for d in diagnostics) else EXIT_CLEAN)


def _never_fail_on_encoding(*streams) -> None:
    """A path the output encoding cannot show (PYTHONIOENCODING=ascii, a cp1252 console)
    is written escaped rather than crashing the run; on UTF-8 output a file name that is
    not UTF-8 (decoded with surrogateescape) is written back as its original bytes."""
    for stream in streams:
        if getattr(stream, "errors", None) != "strict":
            continue
        utf8 = (getattr(stream, "encoding", "") or "").lower().replace("_", "-") in ("utf-8", "utf8")
        try:
            stream.reconfigure(errors="surrogateescape" if utf8 else "backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass


def _summary(diagnostics, file_count: int, fixed: int = 0, unsafe_fixes: bool = False) -> None:
    if not diagnostics:
        fixed_note = f" ({fixed} fixed)" if fixed else ""
        click.echo(f"All clear: no problems in {file_count} file{'s' if file_count != 1 else ''}{fixed_note}.",
                   err=True)
        return
    files = len({d.path for d in diagnostics})
    fixable = sum(1 for d in diagnostics if d.fix is not None and d.fix.safety == "safe")
    hidden = sum(1 for d in diagnostics if d.fix is not None and d.fix.safety == "unsafe")
    if unsafe_fixes:
        fixable, hidden = fixable + hidden, 0
    n = len(diagnostics)
    remaining = f" ({fixed} fixed, {n} remaining)" if fixed else ""
    click.echo(f"Found {n} problem{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}{remaining}.",
               err=True)
    if fixable:
        option = "`--fix --unsafe-fixes`" if unsafe_fixes else "`--fix`"
        click.echo(f"[*] {fixable} fixable with the {option} option.", err=True)
    if hidden:
        click.echo(f"({hidden} hidden fix{'es' if hidden != 1 else ''} can be enabled with the "
                   f"`--unsafe-fixes` option.)", err=True)


@main.command("rule")
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule with its summary.")
def rule(code: Optional[str], show_all: bool) -> None:
    """Show the documentation of a rule (`torchleaklint rule TLL001`)."""
    from torchleaklint.rules import all_rules

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
