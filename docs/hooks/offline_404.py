"""MkDocs hook: the site's 404 page works from disk as well as on a server.

MkDocs writes the links of an error page root-absolute (``/getting-started.html``) so that a server can show it
for a missing page at any depth; opened from disk (file://) those links point at the file system's root. This
hook makes them relative to the site's top, where 404.html is, and adds a ``<base href="/">`` when the page is
served over HTTP(S) - MkDocs' own assumption without ``site_url``, which this site does not set - so a server's
404 at any depth still finds the styles and pages. Every other page's links are relative already
(``use_directory_urls: false``, set by Material's offline plugin).
"""

from __future__ import annotations

import re
from typing import Any

ROOT_ABSOLUTE = re.compile(r'(?P<attribute>\b(?:href|src)=")/(?!/)')
"""An attribute value starting with one slash (not two: ``//host/...`` leaves the site)."""
SERVED_BASE = ('<script>if (location.protocol !== "file:") { var base = document.createElement("base"); '
               'base.href = "/"; document.head.prepend(base); }</script>')
"""The first element of the head: on a server, URLs resolve from the site's top, as MkDocs meant them."""


def relative_error_page(html: str) -> str:
    """404.html with root-absolute links made relative and the served base added."""
    return ROOT_ABSOLUTE.sub(r"\g<attribute>", html).replace("<head>", "<head>" + SERVED_BASE, 1)


def on_post_template(output: str, template_name: str, **_: Any) -> str:
    return relative_error_page(output) if template_name == "404.html" else output
