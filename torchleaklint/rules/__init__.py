"""One rule per module, `tllNNN_<pattern>.py`; `base.all_rules()` discovers them."""

from torchleaklint.rules.base import Rule, all_rules, rule_codes

__all__ = ["Rule", "all_rules", "rule_codes"]
