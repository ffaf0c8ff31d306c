"""The semantic layer shared by every rule.

Rules ask questions here ("does this expression carry an autograd graph?", "is this inside a
loop that runs once per training step?") instead of walking the tree their own way.
"""

from torchleaklint.semantic.model import SemanticModel
from torchleaklint.semantic.values import Value

__all__ = ["SemanticModel", "Value"]
