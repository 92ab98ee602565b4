"""Kind IDENTIFIABLE (proofs/spec-1.0-identifiable.md): 'rule NAME' loads that rule's module and no other."""

from importlib import import_module

from proofs.check import require, wellformed

RULES = {"shallow-1": "rule_shallow.shallow_1", "shallow-2": "rule_shallow.shallow_2",
         "deep-2": "rule_deep2.deep_2", "deep-3": "rule_deep2.deep_3", "deep-n": "rule_deep2.deep_n",
         "deep-3d": "rule_deep3d.deep_3d"}

def check(cert):
    ln, t = cert.body[0] if cert.body else (0, [""])
    wellformed(t[0] == "rule" and len(t) == 2, "E_SYNTAX", ln, "body starts with 'rule NAME'")
    require(t[1] in RULES, "E_RULE_UNKNOWN", ln, f"unknown rule {t[1]!r}")
    module, function = RULES[t[1]].split(".")
    getattr(import_module("proofs." + module), function)(cert, cert.body)
