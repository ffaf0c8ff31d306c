"""`--show-settings`: the settings a run would use and where they came from, as TOML."""

from __future__ import annotations

import json
from dataclasses import fields

from torchleaklint.config import Settings
from torchleaklint.rules import all_rules

_NOT_SETTINGS = {"project_root", "config_path", "per_file_ignores", "rule_options"}


def describe(settings: Settings) -> str:
    source = settings.config_path or "none (defaults)"
    out = [f"# Configuration file: {source}", f"# Project root: {settings.project_root}", "",
           "[tool.torchleaklint]"]
    for f in fields(settings):
        if f.name not in _NOT_SETTINGS:
            value = getattr(settings, f.name)
            key = f.name.replace('_', '-')
            # TOML has no null: an unset option is shown as a comment, so the output loads back
            out.append(f"# {key}: not set (default)" if value is None else f"{key} = {_toml(value)}")
    out += ["", "[tool.torchleaklint.per-file-ignores]"]
    out += [f"{_toml(pattern)} = {_toml(codes)}" for pattern, codes in settings.per_file_ignores]
    for code, options in sorted(settings.rule_options.items()):
        out += ["", f"[tool.torchleaklint.{code}]"]
        out += [f"{key} = {_toml(value)}" for key, value in sorted(options.items())]
    enabled = [f"{code} ({cls.name})" for code, cls in all_rules().items() if settings.code_enabled(code)]
    out += ["", "# Enabled rules: " + (", ".join(enabled) or "none")]
    return "\n".join(out) + "\n"


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)
