"""Command line: `torchleaklint [OPTIONS] PATH...` and `torchleaklint rule CODE`.

Exit status: 0 no problems, 1 problems found (or, with --diff, something to fix),
2 usage, configuration or internal error.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Optional

import click

from torchleaklint import __version__
from torchleaklint.config import ENGINE_CODES, ConfigError, validate_selector
from torchleaklint.discovery import PathError, discover
from torchleaklint.output.color import colorize, use_color
from torchleaklint.progress import PhaseTimer, Progress, progress_enabled
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

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except OSError as exc:
            from torchleaklint.output_errors import OUTPUT_ERRNOS, report_unwritable_output

            if exc.errno not in OUTPUT_ERRNOS:
                raise
            report_unwritable_output(exc)
            sys.exit(EXIT_ERROR)


@click.group(cls=DefaultCommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """torchleaklint: find PyTorch memory anti-patterns (autograd-graph leaks, empty_cache
    in loops, large objects in Ray Tune configs) before the job runs."""


@main.command("check", epilog="Other command: `torchleaklint rule CODE|NAME` prints a rule's documentation "
                               "(`torchleaklint rule --all` lists the rules).")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", help="Comma-separated rule codes or prefixes to enable (replaces the configured selection).")
@click.option("--ignore", help="Comma-separated rule codes or prefixes to disable, in addition to the configured `ignore`.")
@click.option("--extend-select", help="Codes to add to the selection.")
@click.option("--extend-ignore", help="Codes to disable, in addition (same as --ignore).")
@click.option("--per-file-ignores", multiple=True, metavar="PATTERN:CODES",
              help="Ignore CODES in files matching PATTERN (replaces the configured table; repeatable).")
@click.option("--extend-per-file-ignores", multiple=True, metavar="PATTERN:CODES",
              help="Like --per-file-ignores, in addition to the configured table.")
@click.option("--exclude", help="Comma-separated glob patterns to exclude (replaces the defaults).")
@click.option("--extend-exclude", help="Comma-separated glob patterns to exclude, in addition.")
@click.option("--per-step-methods", help="Comma-separated method names/globs that run once per step.")
@click.option("--config", "config_path", type=click.Path(),
              help="Configuration file (pyproject.toml or torchleaklint.toml) for every file, instead of each "
                   "file's closest one.")
@click.option("--isolated", is_flag=True,
              help="Ignore every configuration file and analyze each file on its own (no project analysis).")
@click.option("--output-format", type=click.Choice(FORMATS), default="concise", show_default=True)
@click.option("--output-file", "-o", type=click.Path(dir_okay=False), help="Write the findings to this file.")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (and show) fixes that may change behavior.")
@click.option("--fix-only", is_flag=True, help="Apply fixes, do not report what is left; exit 0 (implies --fix).")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 if any file was fixed, even with nothing left.")
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
@click.option("--silent", "-s", is_flag=True, help="No output at all; the exit status still tells.")
@click.option("--verbose", "-v", is_flag=True, help="Timing of each phase, and tracebacks for internal errors, on stderr.")
@click.option("--color", "color", type=click.Choice(("auto", "always", "never")), default="auto", show_default=True,
              help="Colour the text output (auto: on a terminal; NO_COLOR and FORCE_COLOR are honoured).")
@click.option("--progress/--no-progress", default=None,
              help="Progress on stderr (default: only when stderr is a terminal and not in CI).")
@click.option("--stdin-filename", help="With `-` as the path: lint standard input as if it were this file.")
@click.option("--statistics", is_flag=True, help="Count the findings of each rule instead of listing them.")
@click.option("--add-noqa", is_flag=True, help="Append `# noqa: CODE` to every line with a finding.")
@click.option("--show-settings", is_flag=True,
              help="Print the settings used for the first path (TOML) and the configuration file, then exit.")
@click.option("--show-files", is_flag=True, help="Print the files that would be linted, then exit.")
@click.option("--version", is_flag=True, help="Print the version and exit.")
def check(paths, select, ignore, extend_select, extend_ignore, per_file_ignores, extend_per_file_ignores, exclude,
          extend_exclude, per_step_methods, config_path, output_format, output_file, fix, unsafe_fixes, fix_only,
          exit_non_zero_on_fix, diff, show_fixes, exit_zero, force_exclude, respect_gitignore, jobs, no_cache,
          cache_dir, quiet, silent, verbose, color, progress, stdin_filename, statistics, add_noqa, show_settings,
          show_files, version, project_analysis=None, isolated=False) -> None:
    """Lint PATHS (files or directories; default: the current directory; `-`: standard input)."""
    _never_fail_on_encoding(sys.stdout, sys.stderr)
    if version:
        click.echo(f"torchleaklint {__version__}")
        sys.exit(EXIT_CLEAN)
    fix = fix or fix_only
    quiet = quiet or silent
    reading_stdin = "-" in paths or (stdin_filename is not None and not paths)
    if reading_stdin and len(paths) > 1:
        raise click.UsageError("`-` (standard input) cannot be combined with other paths")
    if reading_stdin and diff:
        raise click.UsageError("--diff is not supported with standard input; use --fix to get the fixed source")
    if add_noqa and (fix or diff or reading_stdin):
        raise click.UsageError("--add-noqa cannot be combined with --fix, --diff or standard input")
    if statistics and output_format not in STATISTICS_FORMATS:
        raise click.UsageError(f"--statistics cannot be written as {output_format} (as in ruff); "
                               f"use --output-format {', '.join(STATISTICS_FORMATS[:-1])} or json")
    if isolated and config_path is not None:
        raise click.UsageError("--isolated ignores configuration files: it cannot be combined with --config")
    if isolated and project_analysis:
        raise click.UsageError("--isolated analyzes each file on its own: it cannot be combined with --project-analysis")
    timer = PhaseTimer()
    try:
        with timer.phase("settings"):
            resolver = _resolver(config_path, select, ignore, extend_select, extend_ignore, per_file_ignores,
                                 extend_per_file_ignores, exclude, extend_exclude, per_step_methods, force_exclude,
                                 respect_gitignore, False if isolated else project_analysis, isolated)
            first = stdin_filename if reading_stdin and stdin_filename else (paths[0] if paths else ".")
            settings = resolver.for_path(first) if first != "-" else resolver.default
        if show_settings:
            from torchleaklint.show_settings import describe

            click.echo(describe(settings), nl=False)
            sys.exit(EXIT_CLEAN)
        if reading_stdin:
            _check_stdin(stdin_filename, settings, output_format, fix, unsafe_fixes, exit_zero,
                         statistics, quiet, verbose)
        with timer.phase("discovery"):
            files = discover(list(paths) or ["."], settings, resolver)
        timer.note(f"files: {len(files)}")
    except (ConfigError, PathError) as exc:
        click.echo(f"torchleaklint: error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    if show_files:
        for path in files:
            click.echo(path)
        sys.exit(EXIT_CLEAN)
    if not files and not silent:
        click.echo("warning: No Python files found under the given path(s)", err=True)

    try:
        explicit = [p for p in paths if p != "-" and not os.path.isdir(p)]
        _lint_and_report(files, resolver, timer, output_format, output_file, fix, unsafe_fixes, fix_only,
                         exit_non_zero_on_fix, diff, show_fixes, exit_zero, jobs, no_cache, cache_dir, quiet,
                         silent, verbose, color, progress, statistics, add_noqa, explicit)
    finally:  # each way out ends in sys.exit
        if verbose:
            timer.report()


def _lint_and_report(files, resolver, timer, output_format, output_file, fix, unsafe_fixes, fix_only,
                     exit_non_zero_on_fix, diff, show_fixes, exit_zero, jobs, no_cache, cache_dir, quiet, silent,
                     verbose, color, progress, statistics, add_noqa, explicit=()) -> None:
    from torchleaklint.environment import drop_walked_parse_errors
    from torchleaklint.runner import lint_paths, open_cache

    try:
        groups = resolver.group(files)
    except ConfigError as exc:
        click.echo(f"torchleaklint: error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    tracker = Progress(len(files), progress_enabled(progress) and not silent)
    results, fixed_count, changed = [], 0, False
    settings = resolver.default
    for settings, group in groups:
        with timer.phase("lint"):
            cache = None if no_cache else open_cache(settings, cache_dir)
            # only the files with findings are kept: the output needs nothing of the clean ones,
            # and a run over 10k files would otherwise hold a result per file to the end
            found = [result for result in tracker.track(lint_paths(group, settings, jobs=jobs, cache=cache,
                                                                   verbose=verbose)) if result[1]]
        found = drop_walked_parse_errors(found, explicit)  # YAML found by a walk: quiet
        timer.note(f"files: {len(group)} ({settings.config_path or 'defaults'})")
        if fix or diff:
            tracker.close()
            from torchleaklint.fixes import apply_fixes_to_results

            with timer.phase("fix"):
                found, fixed, group_changed = apply_fixes_to_results(
                    found, settings, unsafe=unsafe_fixes, write=not diff, show=show_fixes and not silent,
                    verbose=verbose)
            fixed_count, changed = fixed_count + fixed, changed or group_changed
        results.extend(found)
    tracker.close()
    if len(groups) > 1:
        order = {path: i for i, path in enumerate(files)}
        results.sort(key=lambda result: order[result[0]])
    if diff:
        sys.exit(EXIT_FOUND if changed and not exit_zero else EXIT_CLEAN)
    diagnostics = [d for _, found in results for d in found]
    if add_noqa:
        _add_noqa(diagnostics)
    if fix_only:
        _fix_only_exit(diagnostics, fixed_count, quiet, exit_zero, exit_non_zero_on_fix)
    context = {"unsafe_fixes": unsafe_fixes, "settings": settings, "fixed": fixed_count,
               "fail_on_fix": exit_non_zero_on_fix and fixed_count > 0, "no_files": not files}
    with _output_stream(output_file, silent) as stream:
        context["color"] = not silent and use_color(color, stream)
        with timer.phase("output"):
            _report(diagnostics, len(files), output_format, context, statistics, quiet, exit_zero, stream)


STATISTICS_FORMATS = ("concise", "full", "grouped", "json")


def _resolver(config_path, select, ignore, extend_select, extend_ignore, per_file_ignores, extend_per_file_ignores,
              exclude, extend_exclude, per_step_methods, force_exclude, respect_gitignore, project_analysis=None,
              isolated=False):
    """The command line's settings on top of each file's closest configuration."""
    from torchleaklint.cli_overrides import make_overrides, parse_per_file_ignores, split_codes, split_patterns
    from torchleaklint.hierarchy import SettingsResolver

    known = rule_codes() + list(ENGINE_CODES)
    for option, value in (("--select", select), ("--ignore", ignore), ("--extend-select", extend_select),
                          ("--extend-ignore", extend_ignore)):
        for code in split_codes(value) or ():
            validate_selector(code, known, option)
    cwd = os.getcwd()
    overrides = make_overrides(
        cwd, select=split_codes(select), extend_select=split_codes(extend_select), ignore=split_codes(ignore),
        extend_ignore=split_codes(extend_ignore), exclude=split_patterns(exclude),
        extend_exclude=split_patterns(extend_exclude), per_step_methods=split_patterns(per_step_methods) or None,
        per_file_ignores=parse_per_file_ignores(per_file_ignores, "--per-file-ignores", known)
        if per_file_ignores else None,
        extend_per_file_ignores=parse_per_file_ignores(extend_per_file_ignores, "--extend-per-file-ignores", known),
        force_exclude=force_exclude, respect_gitignore=respect_gitignore, project_analysis=project_analysis)
    return SettingsResolver(config_path, cwd, overrides, isolated=isolated)


@contextlib.contextmanager
def _output_stream(output_file: Optional[str], silent: bool):
    """Where the findings go: stdout, `--output-file` (parent directories created, as ruff
    does), or nowhere with --silent."""
    if silent:
        with open(os.devnull, "w", encoding="utf-8") as devnull:
            yield devnull
        return
    if output_file is None:
        yield sys.stdout
        return
    try:
        parent = os.path.dirname(os.path.abspath(output_file))
        os.makedirs(parent, exist_ok=True)
        handle = open(output_file, "w", encoding="utf-8", errors="surrogateescape", newline="")
    except OSError as exc:
        click.echo(f"torchleaklint: error: cannot write {output_file}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_ERROR)
    with handle:
        yield handle


def _fix_only_exit(diagnostics, fixed_count: int, quiet: bool, exit_zero: bool, exit_non_zero_on_fix: bool) -> None:
    """--fix-only: what was fixed, not what is left; exit 0 unless a file was fixed and
    --exit-non-zero-on-fix asks (as ruff)."""
    if not quiet:
        click.echo(f"Fixed {fixed_count} problem{'s' if fixed_count != 1 else ''}." if fixed_count
                   else "No fixes applied.", err=True)
    if any(d.code == INTERNAL_ERROR for d in diagnostics):
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FOUND if exit_non_zero_on_fix and fixed_count and not exit_zero else EXIT_CLEAN)


def _report(diagnostics, file_count: int, output_format: str, context, statistics: bool, quiet: bool,
            exit_zero: bool, stream) -> None:
    """Write the findings (or their statistics) to `stream` and exit with the run's status."""
    if statistics:
        from torchleaklint.output.statistics import render as render_statistics

        text = render_statistics(diagnostics, output_format)
    else:
        text = renderer(output_format)(diagnostics, context)
    stream.write(colorize(text, output_format) if context.get("color") else text)
    stream.flush()
    if not quiet and output_format in ("concise", "full", "grouped") and not context.get("no_files"):
        _summary(diagnostics, file_count, context.get("fixed", 0), context.get("unsafe_fixes", False))
    if any(d.code == INTERNAL_ERROR for d in diagnostics):
        sys.exit(EXIT_ERROR)
    failed = diagnostics or context.get("fail_on_fix")
    sys.exit(EXIT_FOUND if failed and not exit_zero else EXIT_CLEAN)


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
@click.argument("code", required=False, metavar="CODE|NAME")
@click.option("--all", "show_all", is_flag=True, help="List every rule with its summary.")
def rule(code: Optional[str], show_all: bool) -> None:
    """Show the documentation of a rule, by code or name (`torchleaklint rule TLL001`,
    `torchleaklint rule loss-accumulated-with-graph`); TLL900 and TLL901 too."""
    from torchleaklint.rules import all_rules

    from torchleaklint.engine_docs import ENGINE_DOCS, engine_documentation

    rules = all_rules()
    if show_all or code is None:
        for rule_code, cls in rules.items():
            fix = {"safe": "fix", "unsafe": "unsafe fix"}.get(cls.fix_safety, "")
            click.echo(f"{rule_code}  {cls.name:<40} {fix:<11} {cls.summary}")
        return
    # by code (`TLL001`) or by name (`loss-accumulated-with-graph`), as `ruff rule` accepts
    by_name = {cls.name: rule_code for rule_code, cls in rules.items()}
    by_name.update({name: engine_code for engine_code, (name, _) in ENGINE_DOCS.items()})
    wanted = by_name.get(code.lower(), code.upper())
    if wanted in ENGINE_DOCS:
        click.echo(engine_documentation(wanted))
        return
    cls = rules.get(wanted)
    if cls is None:
        click.echo(f"torchleaklint: error: unknown rule `{code}` (known: {', '.join(list(rules) + list(ENGINE_DOCS))}, "
                   f"or a rule's name: `torchleaklint rule --all` lists them)", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(cls.documentation())


@main.command("server")
@click.option("--stdio", is_flag=True, help="Accepted for clients that pass it: stdio is the transport.")
def server(stdio: bool) -> None:
    """Run the language server (LSP over stdio) for editors; needs `pip install "torchleaklint[lsp]"`."""
    from torchleaklint.server import start

    sys.exit(start())


if __name__ == "__main__":  # pragma: no cover
    main()
