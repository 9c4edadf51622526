"""MkDocs hook: a page that includes a file of the repository reads right on a forge too.

pymdownx.snippets includes a file where a line reads ``--8<-- "FILE"``; GitHub and other forges show that line
as it is. So the pages write the include inside an HTML comment, which a forge hides, next to a line for forge
readers that says where the included text is (ending in ``<!-- forge only -->``)::

    *The two commands are [the README's first code blocks](../README.md).* <!-- forge only -->
    <!-- --8<-- "README.md:commands" -->

Before the page is converted this hook unwraps the include (snippets then inserts the file) and drops the
forge-only lines (their links leave docs/, which the strict build would refuse). One rule for every page.
"""

from __future__ import annotations

import re
from typing import Any

INCLUDE = re.compile(r'^(?P<space>[ \t]*)<!-- (?P<include>--8<-- "[^"\n]+") -->[ \t]*$', re.MULTILINE)
"""An include written for forges: the snippets line inside an HTML comment, alone on its line."""
FORGE_ONLY = re.compile(r"^.*<!-- forge only -->[ \t]*\n?", re.MULTILINE)
"""A line only a forge reader needs."""


def for_the_site(markdown: str) -> str:
    """The page as the site builds it: includes unwrapped, forge-only lines gone."""
    return FORGE_ONLY.sub("", INCLUDE.sub(r"\g<space>\g<include>", markdown))


def on_page_markdown(markdown: str, **_: Any) -> str:
    return for_the_site(markdown)
