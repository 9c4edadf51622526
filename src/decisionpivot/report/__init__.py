"""report: ``dp report`` - the static HTML report of a scoring, with a contrast-group browser.

Built from ``dp score``'s outputs (``reports/scores.json``, ``scoring.json``, and ``partial.csv``,
``gate.json``, ``stability.json`` when present), the core items and the answer files, into a folder
(``reports/site/``) that works from ``file://`` and any static host: no network, no CDN, no library, the
same bytes for the same inputs. Modules, in the order data flows:

* :mod:`~decisionpivot.report.inputs` - reading and checking the inputs;
* :mod:`~decisionpivot.report.decisive` - declared decisive paths (redrawn and checked) and rendered
  differences of a group's members;
* :mod:`~decisionpivot.report.facts` - what kind of system, how complete, how it ran;
* :mod:`~decisionpivot.report.svg`, :mod:`~decisionpivot.report.html` - charts and the page shell;
* :mod:`~decisionpivot.report.overview`, :mod:`~decisionpivot.report.family_pages`,
  :mod:`~decisionpivot.report.system_pages`, :mod:`~decisionpivot.report.recorded_pages`,
  :mod:`~decisionpivot.report.groups` - the pages and the browser's data files;
* :mod:`~decisionpivot.report.site` - ``dp report``: build in memory, swap the folder in whole.

Entry point: :func:`decisionpivot.report.site.report_site`.
"""
