"""Full licence texts shipped with the package, for the release's ``LICENSES/`` folder and the repository.

The texts in ``licenses/texts/`` are verbatim copies of the official plain-text versions:
``Apache-2.0.txt`` (apache.org LICENSE-2.0.txt), ``CC-BY-4.0.txt`` and ``CC-BY-3.0.txt`` (Creative
Commons legal code, plain text), and ``MIT-permission-notice.txt`` (the MIT permission notice
without its copyright line, which differs per work).
"""

from __future__ import annotations

import re
from importlib import resources

CORE_ITEMS_SPDX = "CC-BY-4.0"
"""Licence of the core items (the generated families)."""
CODE_SPDX = "Apache-2.0"
"""Licence of the package's code."""

CANONICAL_URLS = {
    "Apache-2.0": "https://www.apache.org/licenses/LICENSE-2.0",
    "CC-BY-4.0": "https://creativecommons.org/licenses/by/4.0/legalcode",
    "CC-BY-3.0": "https://creativecommons.org/licenses/by/3.0/legalcode",
    "MIT": "https://opensource.org/license/mit",
}
"""Official pages of the licences whose text the package ships."""

_FILES = {"Apache-2.0": "Apache-2.0.txt", "CC-BY-4.0": "CC-BY-4.0.txt", "CC-BY-3.0": "CC-BY-3.0.txt"}
_COPYRIGHT = re.compile(r"Copyright \(c\)[^;\n]*", re.IGNORECASE)


def _read(name: str) -> str:
    return (resources.files("decisionpivot.licenses") / "texts" / name).read_text(encoding="utf-8")


def has_text(spdx: str | None) -> bool:
    """Whether the package ships the full text of this SPDX licence."""
    return spdx in _FILES or spdx == "MIT"


def licence_text(spdx: str) -> str:
    """The full text of a licence the package ships (not MIT: see :func:`mit_text`)."""
    if spdx not in _FILES:
        raise KeyError(f"no shipped text for licence {spdx!r}")
    return _read(_FILES[spdx])


def copyright_line(attribution: str) -> str | None:
    """The ``Copyright (c) ...`` notice inside a card's attribution text, if it states one."""
    found = _COPYRIGHT.search(attribution)
    return found.group(0).strip() if found else None


def mit_text(copyright_notice: str | None) -> str:
    """The MIT licence with the work's own copyright line (or a pointer when the card gives none)."""
    notice = copyright_notice or "Copyright (c) the authors of the source work (see the source repository)"
    return f"MIT License\n\n{notice}\n\n{_read('MIT-permission-notice.txt')}"
