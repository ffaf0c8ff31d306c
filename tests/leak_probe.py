"""Measure what a fix case keeps alive: autograd nodes reachable from the retained value."""

from __future__ import annotations

import importlib.util
import sys
import uuid

import torch


def load(path):
    """Import a fix case by path under a fresh module name (no caching between runs)."""
    name = f"fix_case_{uuid.uuid4().hex}"
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def tensors_in(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from tensors_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors_in(item)


def graph_nodes(value) -> int:
    """Distinct autograd nodes reachable from the tensors in `value` (0 for numbers and
    detached tensors): the graph the retained value keeps alive."""
    seen = set()
    stack = [t.grad_fn for t in tensors_in(value) if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_fn for next_fn, _ in node.next_functions)
    return len(seen)


def saved_bytes(value) -> int:
    """Bytes of tensors saved for backward by those nodes (activations kept alive)."""
    total, seen = 0, set()
    stack = [t.grad_fn for t in tensors_in(value) if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for attr in dir(node):
            if attr.startswith("_saved_"):
                try:
                    saved = getattr(node, attr)
                except RuntimeError:  # freed by a backward without retain_graph
                    continue
                if isinstance(saved, torch.Tensor):
                    total += saved.numel() * saved.element_size()
        stack.extend(next_fn for next_fn, _ in node.next_functions)
    return total
