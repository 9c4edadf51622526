"""The dataset card (``README.md`` with YAML front matter) of the gated Hugging Face dataset.

The front matter is what the Hub and the ``datasets`` library read: licence, language, task
categories, size category, one ``configs`` entry per core family, per family of the invariance suite
(``invariance-<family>``) and per redistributed reference task (split ``test``), and the gating
form (``extra_gated_prompt`` / ``extra_gated_fields``) that states the access conditions. The body
says the same for people. Nothing in the card depends on the repository id, the time or the host,
so two builds of the same items give the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from decisionpivot.licenses.fulltext import CORE_ITEMS_SPDX

PRETTY_NAME = "DecisionPivot"
SPLIT = "test"
TASK_CATEGORIES = ("text-classification", "multiple-choice")
TAGS = ("benchmark", "evaluation", "decision-making", "llm-evaluation", "contrast-sets", "synthetic")

ACCESS_CONDITIONS = (
    "Evaluation use only: use the items to evaluate systems and to report results.",
    "No training: do not train, fine-tune or otherwise optimise a model (or its prompts) on the items, "
    "and do not add them to training data.",
)
"""The conditions users accept when they request access (also shown by `dp download` on a gated answer)."""

GATED_FIELDS = {
    "Name": "text",
    "Affiliation": "text",
    "Systems you will evaluate": "text",
    "I will use the items for evaluation only": "checkbox",
    "I will not train or fine-tune any model on the items, nor add them to training data": "checkbox",
}


@dataclass(frozen=True)
class ConfigEntry:
    """One loadable part of the dataset: a core family, a family of the invariance suite or a redistributed
    reference task."""

    name: str
    """Config name (family or task id; ``invariance-<family>`` for the suite)."""
    kind: str
    """``core``, ``invariance``, ``scale``, ``scale-invariance`` or ``reference``."""
    layer: str
    """Decision layer A-G."""
    path: str
    """Items file inside the release folder."""
    items: int
    """Number of items."""
    license: str
    """SPDX id (or name) of the items' licence."""
    title: str = ""
    """Source title (reference tasks)."""


class _CardDumper(yaml.SafeDumper):
    """Safe YAML with multi-line strings as literal blocks (readable gating prompt)."""


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_CardDumper.add_representer(str, _str_representer)


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {plural or word + 's'}"


def hf_license_id(spdx: str) -> str:
    """The Hub's licence identifier for an SPDX id (lower-case SPDX), or ``other`` for a free-text licence."""
    value = spdx.lower()
    return value if re.fullmatch(r"[a-z0-9][a-z0-9.+-]*", value) else "other"


def size_category(n: int) -> str:
    """The Hub's size category for ``n`` items."""
    bounds = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"))
    for bound, name in bounds:
        if n < bound:
            return name
    return "1M<n<10M"


def front_matter(configs: Sequence[ConfigEntry]) -> dict:
    """The YAML metadata block of the card."""
    licences = [hf_license_id(CORE_ITEMS_SPDX)]
    for entry in configs:
        lid = hf_license_id(entry.license)
        if lid not in licences:
            licences.append(lid)
    prompt = ("DecisionPivot items are shared for evaluation only. By requesting access you agree to these "
              "conditions:\n" + "".join(f"- {c}\n" for c in ACCESS_CONDITIONS)
              + "Requests are reviewed by the maintainers. The licences of the items (CC BY 4.0 for the core "
              "items; each reference task's own terms, see LICENSES/) apply as well.")
    return {
        "pretty_name": PRETTY_NAME,
        "license": licences[0] if len(licences) == 1 else licences,
        "language": ["en"],
        "task_categories": list(TASK_CATEGORIES),
        "tags": list(TAGS),
        "size_categories": [size_category(sum(e.items for e in configs))],
        "configs": [{"config_name": e.name, "data_files": [{"split": SPLIT, "path": e.path}]} for e in configs],
        "extra_gated_prompt": prompt,
        "extra_gated_fields": dict(GATED_FIELDS),
        "extra_gated_button_content": "Accept the conditions and request access",
    }


def _contents_table(configs: Sequence[ConfigEntry]) -> list[str]:
    lines = ["| config | part | layer | items | licence | file |", "|---|---|---|---:|---|---|"]
    lines += [f"| {e.name} | {e.kind} | {e.layer} | {e.items} | {e.license} | `{e.path}` |" for e in configs]
    return lines


def _not_included(reconstruct_only: Sequence[tuple[str, str]], missing: Sequence[str]) -> list[str]:
    lines: list[str] = []
    if reconstruct_only:
        lines += ["## Reference tasks not in this dataset", "",
                  "Their terms do not allow redistribution under the access conditions above, so they ship only "
                  "as reconstruction: download the official files yourself, then run "
                  "`dp reconstruct TASK --source DIR`, which checks every file's SHA-256, the item count and "
                  "the items' SHA-256.", "", "| task | why |", "|---|---|"]
        lines += [f"| {task} | {reason} |" for task, reason in reconstruct_only]
        lines.append("")
    if missing:
        lines += ["Redistributable tasks whose items were not built for this release: "
                  + ", ".join(missing) + ".", ""]
    return lines


def _suite_summary(suite: Mapping[str, Any] | None) -> str:
    if not suite:
        return "The invariance suite is not part of this build."
    families = suite.get("families") or {}
    base = sum(int(e.get("base_items") or 0) for e in families.values())
    return (f"{suite.get('items')} items of the invariance suite {suite.get('version')} ({base} core items of "
            f"{_plural(len(families), 'family', 'families')}, each asked in every framing).")


def _suite_section(configs: Sequence[ConfigEntry], suite: Mapping[str, Any] | None) -> list[str]:
    """What the invariance suite is, its framings and counts (from its manifest section), or that it was left out."""
    if not suite:
        return ["## Invariance suite", "",
                "The invariance suite was left out of this build; the release carries it (`dp frame` draws it "
                "byte for byte).", ""]
    families = suite.get("families") or {}
    core = suite.get("core") or {}
    by_path = {e.path: e for e in configs if e.kind == "invariance"}
    rows = [f"| {by_path[e['file']].name if e['file'] in by_path else name} | {name} | {e['layer']} | "
            f"{e.get('base_items')} | {e.get('groups')} | {e['items']} |" for name, e in families.items()]
    framings = suite.get("framings") or []
    return [
        f"## Invariance suite (version {suite.get('version')})", "",
        "The other half of a decision: a decision model must *change* its answer when the decisive fact changes "
        "(the core's contrast groups) and *keep* it when nothing decisive changes. The suite asks core items in "
        "other ways: the question reworded by hand, asked the other way round (yes/no families; gold flips), "
        "option keys renamed, the state padded with irrelevant text of the family's own setting at three "
        "lengths, a note in the state arguing for a wrong option, and the question asked together with "
        "companion questions in one request.", "",
        f"It is a seeded sample (seed {suite.get('seed')}) of whole contrast groups of core release "
        f"{core.get('version')}: every member of a sampled group is written in every framing that applies to its "
        f"family ({', '.join(f'`{f}`' for f in framings)}; `negation` for yes/no families only). "
        "Every framed item's gold follows from its core item's gold (the independent solvers re-derive it from "
        "the framed item itself); no model wrote or labelled anything. One config per family:", "",
        "| config | family | layer | core items | contrast groups | items |", "|---|---|---|---:|---:|---:|",
        *rows, "",
        "A framed item is a core item with five more keys: `base` (the core item's id), `framing`, `key_map` "
        "(framed option key -> core option key with the same meaning), `steer_to` (the option a steering note "
        "argues for, else null) and `companions` (the further questions of `together`, else null). Ids are "
        "`<core id>~<framing>`. Evaluate it like the core: "
        "`dp evaluate --system X --items datasets/hub/invariance`; `dp score --invariance` reports robust pair "
        "accuracy (a group counts only if every member is right under every framing), flip rate, negation "
        "coherence, steering success and request interference.", "",
    ]


def _scale_section(configs: Sequence[ConfigEntry], scale: Mapping[str, Any] | None) -> list[str]:
    """What the scale suite is and holds (from the release manifest's scale section); nothing when left out."""
    if not scale:
        return []
    parts = [e for e in configs if e.kind == "scale"]
    framed = scale.get("framings") or None
    lines = [
        f"## Scale suite (version {scale.get('version')})", "",
        "Score questions: a level on an ordered scale (a priority, a severity, a risk tier, a discrepancy band, a "
        "grade) whose gold follows exactly from the rules and facts in the state, in contrast groups whose members "
        "sit one step either side of a level boundary. Options are the levels, lowest first, keyed \"0\", \"1\", "
        "...; each item carries `\"question_type\": \"score\"`. "
        f"{sum(e.items for e in parts)} items in {_plural(len(parts), 'family', 'families')} "
        "(configs `scale-<family>`), "
        "reproducible byte for byte with `dp scale`; `dp score --scale` reports exact and within-one accuracy, errors "
        "in levels, quadratic-weighted kappa, ranked probability score, score confidence, pair accuracy and ordinal "
        "pair direction.", ""]
    if framed:
        lines += [f"Its framings (version {framed.get('version')}: {', '.join(framed.get('framings') or [])}; "
                  f"{framed.get('items')} items, configs `scale-invariance-<family>`) ask a third of the contrast "
                  "groups again with the scale listed highest first, the level keys renamed and the rubric reworded, "
                  "each with exact gold (`dp scale --framings`).", ""]
    return lines


def card_body(configs: Sequence[ConfigEntry], reconstruct_only: Sequence[tuple[str, str]],
              missing: Sequence[str], release: str, suite: Mapping[str, Any] | None = None,
              scale: Mapping[str, Any] | None = None) -> str:
    """The Markdown body of the card; ``suite`` is the release manifest's invariance section (None: left out),
    ``scale`` its scale section (None: left out, and the card says nothing of it)."""
    core = [e for e in configs if e.kind == "core"]
    reference = [e for e in configs if e.kind == "reference"]
    lines = [
        f"# {PRETTY_NAME} (release {release})", "",
        "A diagnostic benchmark for *decision models* in LLM systems: components that pick one option from a "
        "finite set (route, allow, verify, accept a tool call, check a goal, reconcile a record, match a "
        "constraint) and answer with a probability per option.", "",
        f"This dataset holds {sum(e.items for e in core)} core items in {_plural(len(core), 'family', 'families')} "
        "(generated, invented entities, contrast groups) and "
        f"{sum(e.items for e in reference)} items of {_plural(len(reference), 'redistributable reference task')} "
        f"(public test sets converted to the same format). {_suite_summary(suite)}", "",
        "## Access conditions", "",
        "Access is gated and approved by hand. By requesting access you agree to:", "",
        *[f"{i}. {c}" for i, c in enumerate(ACCESS_CONDITIONS, start=1)], "",
        "## Contents", "", *_contents_table(configs), "",
        "Each config has one split, `test`. Load one with `datasets`:", "",
        "    from datasets import load_dataset",
        '    items = load_dataset("<this repository>", "<config>", split="test")', "",
        "or fetch everything and verify every SHA-256 against the manifest shipped in the `decisionpivot` "
        "package (which also generates, verifies and scores the items):", "",
        "    dp download --repo-id <this repository>", "",
        "## Item format", "",
        "One JSON object per line, fixed key order: `id`, `family`, `layer`, `version`, `group` (contrast group; "
        "members differ only in the decisive fact), `level` (1-3 for core items), `variation`, `domain`, "
        "`state` (text, or a JSON object for structured states), `question`, `options` (ordered "
        "`{key, meaning}` objects), `answer` (gold option key). Reference items may add what their metric "
        "needs (e.g. `query`, `success_rate`).", "",
        *_suite_section(configs, suite),
        *_scale_section(configs, scale),
        *_not_included(reconstruct_only, missing),
        "## Licences", "",
        f"- Core items{', the invariance suite and the scale suite' if scale else ' and the invariance suite'}: "
        "Creative Commons Attribution 4.0 International (`LICENSES/CC-BY-4.0.txt`).",
        *[f"- {e.name}: {e.license}, see `LICENSES/{e.name}.md` ({e.title})." for e in reference],
        "- The `decisionpivot` code that generates, verifies and scores the items: Apache-2.0.", "",
        "## Integrity", "",
        "`MANIFEST.json` lists every other file with its SHA-256 and size. "
        "`dp download` checks each file against the manifest shipped inside the package, not against the "
        "downloaded one. The core items are reproducible byte for byte with `dp generate`, the invariance suite "
        "with `dp frame`.", "",
    ]
    return "\n".join(lines)


def dataset_card(configs: Sequence[ConfigEntry], reconstruct_only: Sequence[tuple[str, str]],
                 missing: Sequence[str], release: str, suite: Mapping[str, Any] | None = None,
                 scale: Mapping[str, Any] | None = None) -> str:
    """The whole ``README.md``: YAML front matter between ``---`` lines, then the body."""
    meta = yaml.dump(front_matter(configs), Dumper=_CardDumper, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{meta}---\n\n{card_body(configs, reconstruct_only, missing, release, suite, scale)}"
