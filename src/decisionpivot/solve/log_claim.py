"""Independent solver for log_claim: read the log lines and the claim, then count.

Reads only the rendered state. Every log line is recognised by one of three layouts (plain,
bracketed time, pipe-separated); the claim sentence by one of three phrasings. Times are compared as
HH:MM:SS strings, which order correctly because they are zero-padded on a 24-hour clock; both window
edges are inclusive, as the reading notes say.
"""

from __future__ import annotations

import re

from decisionpivot.items import Item

FAMILY = "log_claim"

_T = r"(?P<t>\d\d:\d\d:\d\d)"
_LV = r"(?P<lv>DEBUG|INFO|WARN|ERROR)"
_LINES = (
    re.compile(rf"^{_T} (?P<svc>[a-z]+) {_LV} .+$"),
    re.compile(rf"^\[{_T}\] {_LV} (?P<svc>[a-z]+): .+$"),
    re.compile(rf"^{_T} \| (?P<svc>[a-z]+) \| {_LV} \| .+$"),
)
_CLAIMS = (
    re.compile(r"^Between (?P<a>\S+) and (?P<b>\S+), the (?P<svc>\S+) service logged exactly (?P<n>\d+) "
               r"(?P<lv>\w+) events?\.$"),
    re.compile(r"^From (?P<a>\S+) to (?P<b>\S+), exactly (?P<n>\d+) (?P<lv>\w+) events? (?:was|were) logged "
               r"by the (?P<svc>\S+) service\.$"),
    re.compile(r"^The (?P<svc>\S+) service wrote exactly (?P<n>\d+) events? at level (?P<lv>\w+) between "
               r"(?P<a>\S+) and (?P<b>\S+)\.$"),
)


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("log_claim states are text")
    lines = item.state.splitlines()
    claim_text = next(line for line in lines if line.startswith("Claim: "))[len("Claim: "):]
    claim = next((m for m in (p.match(claim_text) for p in _CLAIMS) if m), None)
    if claim is None:
        raise ValueError(f"unrecognised claim: {claim_text!r}")
    log_at = lines.index("Log:")
    seen = 0
    for line in lines[log_at + 1:]:
        if not line.strip():
            break
        m = next((m for m in (p.match(line) for p in _LINES) if m), None)
        if m is None:
            raise ValueError(f"unrecognised log line: {line!r}")
        if (m.group("svc") == claim.group("svc") and m.group("lv") == claim.group("lv")
                and claim.group("a") <= m.group("t") <= claim.group("b")):
            seen += 1
    return "yes" if seen == int(claim.group("n")) else "no"
