"""torchleaklint: a static analyzer for PyTorch memory anti-patterns."""

__version__ = "0.1.0"
