"""Which stack an image built from this repository runs, read from its Dockerfile.

A manifest often names an image the same repository builds (`ghcr.io/org/darts-cnn-gpu`
from `trial-images/darts-cnn/Dockerfile.gpu`). The image name alone says nothing about
PyTorch; its Dockerfile does. An image matches a Dockerfile when the image's last path
component (tag dropped) is the Dockerfile's directory name (`Dockerfile`,
`Containerfile`), the directory name plus `-<suffix>` (`Dockerfile.<suffix>`), or the
Dockerfile's stem (`<name>.Dockerfile`). Only a unique match counts; anything else is
unknown, and unknown changes nothing.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Dict, List, Optional, Tuple

from torchleaklint.environment import evidence

TORCH = "torch"
OTHER = "other"  # a different ML framework's stack (TensorFlow, JAX, MindSpore, Paddle, MXNet)
_MAX_ENTRIES = 50_000  # directory entries walked per repository before giving up (unknown)
_DOCKERFILE = re.compile(r"^(?:Dockerfile|Containerfile)(?:\.([\w.-]+))?$|^([\w.-]+)\.[Dd]ockerfile$")


def repository_root(directory: str, project_root: Optional[str]) -> str:
    """The nearest ancestor holding `.git`; else the project root when `directory` is
    inside it; else `directory` itself."""
    current = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if project_root:
        root = os.path.abspath(project_root)
        if os.path.commonpath([root, os.path.abspath(directory)]) == root:
            return root
    return os.path.abspath(directory)


def image_stack(image: Optional[str], root: str) -> Optional[Tuple[str, str]]:
    """(TORCH or OTHER, reason) for an image this repository builds, or None."""
    name = _image_name(image)
    if not name:
        return None
    paths = _index(root).get(name, [])
    verdicts = {_dockerfile_stack(path, _mtime(path)) for path in paths}
    if len(verdicts) != 1 or None in verdicts:
        return None
    kind = verdicts.pop()
    rel = os.path.relpath(paths[0], root)
    if kind == TORCH:
        return TORCH, f"image `{image}` is built by `{rel}` on a PyTorch/Ray stack"
    return OTHER, f"image `{image}` is built by `{rel}` on another framework"


def image_dockerfile(image: Optional[str], root: str) -> Optional[str]:
    """The one Dockerfile of this repository that builds `image`, or None (none, or several)."""
    name = _image_name(image)
    paths = _index(root).get(name, []) if name else []
    return paths[0] if len(paths) == 1 else None


def _image_name(image: Optional[str]) -> Optional[str]:
    if not image or "$" in image or "{" in image or "<" in image:
        return None
    last = image.split("@", 1)[0].rsplit("/", 1)[-1]
    return last.split(":", 1)[0].lower() or None


@functools.lru_cache(maxsize=16)
def _index(root: str) -> Dict[str, List[str]]:
    out: Dict[str, List[str]] = {}
    seen = 0
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in evidence.SKIP_DIRS and not d.startswith("."))
        seen += len(dirnames) + len(filenames)
        if seen > _MAX_ENTRIES:
            return {}
        base = os.path.basename(directory).lower()
        for filename in filenames:
            match = _DOCKERFILE.match(filename)
            if not match:
                continue
            suffix, stem = match.group(1), match.group(2)
            key = stem.lower() if stem else f"{base}-{suffix.lower()}" if suffix else base
            out.setdefault(key, []).append(os.path.join(directory, filename))
    return out


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


@functools.lru_cache(maxsize=256)
def _dockerfile_stack(path: str, mtime: float) -> Optional[str]:  # mtime: a long-lived server sees edits
    text = evidence.read_text(path)
    if evidence.dockerfile_evidence(path, os.path.dirname(path)):
        return TORCH
    from torchleaklint.environment.dockerfile_reader import from_image, instructions

    for instruction in instructions(text):
        if instruction.keyword == "FROM" and evidence.other_framework(from_image(instruction)):
            return OTHER
    return None
