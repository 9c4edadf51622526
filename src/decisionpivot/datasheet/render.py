"""``DATASHEET.md``: the Gebru et al. datasheet questions, answered from metadata and computed statistics.

Sections follow "Datasheets for Datasets" (Gebru et al., 2021): motivation, composition, collection
process, preprocessing/cleaning/labelling, uses, distribution, maintenance. Fixed prose states what
the design guarantees; every number comes from :mod:`decisionpivot.datasheet.stats`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from decisionpivot import BENCHMARK_VERSION, __version__
from decisionpivot.datasheet.stats import INSERTING_FRAMINGS, QUANTILES, DatasheetStats, PartStats, SuiteStats
from decisionpivot.licenses.routes import (
    HELD_BACK_BY_RULES,
    PAPER_RESTRICTED_TASKS,
    REDISTRIBUTE,
    RESTRICTED_BY_TERMS,
)
from decisionpivot.reconstruct.card import LABEL_SOURCES
from decisionpivot.release.datacard import ACCESS_CONDITIONS

LAYER_NAMES = {
    "A": "answerability and routing",
    "B": "policy-based guardrails",
    "C": "output verification",
    "D": "tool validation and goal checking",
    "E": "reasoning-based classification",
    "F": "record integrity and reconciliation",
    "G": "constraint-based search and matching",
}
"""The seven decision layers (functional roles of a decision inside an LLM system)."""


def _table(header: Sequence[str], rows: Iterable[Sequence[object]], right: int = 0) -> list[str]:
    """A Markdown table; the last ``right`` columns are right-aligned."""
    align = ["---"] * (len(header) - right) + ["---:"] * right
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def _mapping(counts: dict[str, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in counts.items())


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 family`` / ``2 families``."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def _q(title: str, *answer: str) -> list[str]:
    return [f"**{title}**", "", *answer, ""]


def _composition_tables(stats: DatasheetStats) -> list[str]:
    parts = stats.core + stats.reference
    quantile_names = ["min", "q25", "median", "q75", "max"][: len(QUANTILES)]
    lines = ["Counts per family (core) and task (reference):", ""]
    lines += _table(["part", "name", "layer", "items", "groups", "levels", "options per item"],
                    [(p.kind, p.name, p.layer, p.items, p.groups, _mapping(p.levels), _mapping(p.option_counts))
                     for p in parts], right=0)
    lines += ["", "Gold answers per option key (class balance):", ""]
    lines += _table(["name", "answers"], [(p.name, _mapping(p.answers)) for p in parts])
    lines += ["", "State length in characters, as shown to a model (nearest-rank quantiles):", ""]
    lines += _table(["name", *quantile_names, "structured states"],
                    [(p.name, *p.state_chars, p.structured_states) for p in parts], right=len(quantile_names) + 1)
    lines += ["", "Domains of the invented worlds (core):", ""]
    lines += _table(["family", "domains"], [(p.name, _mapping(p.domains)) for p in stats.core])
    lines += ["", "Variation types of the contrast members:", ""]
    lines += _table(["name", "variations"], [(p.name, _mapping(p.variations)) for p in parts])
    return lines


def _card_tables(stats: DatasheetStats) -> list[str]:
    lines = _table(["task", "layer", "licence", "class", "labels", "metric", "route", "items file"],
                   [(c.task, c.layer, c.license, c.license_class, c.label_source, c.metric, c.route,
                     "present" if c.present else "not built") for c in stats.cards])
    lines += ["", "Counts over all task cards:", "",
              f"- licence classes: {_mapping(stats.card_counts('license_class'))}",
              f"- label sources: {_mapping(stats.card_counts('label_source'))} "
              f"({', '.join(f'{k} = {v}' for k, v in LABEL_SOURCES.items())})",
              f"- release routes: {_mapping(stats.card_counts('route'))}",
              f"- layers: {_mapping(stats.card_counts('layer'))}"]
    return lines


def _motivation(stats: DatasheetStats) -> list[str]:
    return [
        "## Motivation", "",
        *_q("For what purpose was the dataset created?",
            "To evaluate *decision models*: components of LLM systems that pick one option from a finite set "
            "(route, allow, verify, accept a tool call, check a goal, reconcile a record, match a constraint) and "
            "give a probability per option. Core items come in contrast groups whose members differ only in the "
            "decisive fact, so pair accuracy shows whether a model follows that fact rather than surface cues; "
            "the reference track relates the results to public test sets."),
        *_q("Which roles are covered?",
            *[f"- {layer}: {name}" for layer, name in LAYER_NAMES.items()]),
        *_q("Who created the dataset, and who funded it?",
            "The DecisionPivot maintainers, with the `decisionpivot` package (version "
            f"{__version__}). Funding is not recorded in the package metadata; see the paper."),
    ]


def _composition(stats: DatasheetStats) -> list[str]:
    present = sum(1 for c in stats.cards if c.present)
    return [
        "## Composition", "",
        *_q("What do the instances represent?",
            "Each instance is one decision: a state (text, or a JSON object for structured states), a typed "
            "question, an ordered list of options (`key: meaning`) and the gold option key. Core items describe "
            "invented organisations, people, files, bookings, ledgers and packages; reference items are records of "
            "public test sets converted to the same form."),
        *_q("How many instances are there?",
            f"{stats.core_items} core items in {plural(len(stats.core), 'family', 'families')}, and "
            f"{stats.reference_items} reference items in {plural(present, 'reference task')} built here (of "
            f"{plural(len(stats.cards), 'task card')})."
            + ("" if stats.invariance is None else
               f" The invariance suite adds {stats.invariance.items} framed items (section Invariance suite).")),
        *_composition_tables(stats), "",
        *_q("Is it a sample of a larger set?",
            "Core items are a seeded draw from generators that can draw any number of fresh samples "
            f"(`dp generate --seed N`); the released seed(s): {', '.join(map(str, stats.seeds)) or 'not recorded'}. "
            "Reference tasks are fixed-seed samples of at most the card's target count from the official test "
            "files (all records when there are fewer)."),
        *_q("Is there a label or target?",
            "Yes: `answer`, the gold option key. Core gold answers are computed from the structured case the "
            "state is rendered from; reference answers come from the source (label sources below)."),
        *_q("Is any information missing?",
            "Core items: no. Reference items with a null `answer` are scored by another label (e.g. "
            "`success_rate`); extra keys per task: "
            + (", ".join(f"{p.name}: {', '.join(p.extra_keys)}" for p in stats.reference if p.extra_keys)
               or "none in the tasks built here") + "."),
        *_q("Are relationships between instances made explicit?",
            "Yes: `group` names the contrast group; members share context and distractors and differ in the "
            "decisive fact. Scoring resamples whole groups."),
        *_q("Are there recommended data splits?",
            "No training split exists by design: every item is a test item (split `test`)."),
        *_q("Are there errors, sources of noise, or redundancies?",
            "Core gold answers are re-derived by independent solvers that read only the rendered item "
            "(`dp verify`, 100% agreement required); generators assert that no two items share a state. "
            "Reference labels carry whatever noise their sources have; see each task card's caveats."),
        *_q("Is the dataset self-contained?",
            "The core items are. Reference tasks routed reconstruct-only must be rebuilt from official files the "
            "user downloads (`dp reconstruct`), with hash and count checks."),
        *_q("Does it contain confidential, offensive or personal data?",
            "Core items use invented entities and contain no personal data and no third-party text. Some reference "
            "tasks (notably the guardrail tasks of layer B) contain harmful or offensive text as classification "
            "input, as published by their sources."),
        "### Reference task cards", "", *_card_tables(stats), "",
    ]


def _suite_counts(suite: SuiteStats) -> list[str]:
    lines = ["Items per family and framing:", ""]
    lines += _table(["family", "layer", "core items", "groups", *suite.framings, "items"],
                    [(f.name, f.layer, f.base_items, f.groups, *(f.framings.get(x, 0) for x in suite.framings),
                      f.items) for f in suite.families], right=len(suite.framings) + 3)
    inserting = [x for x in INSERTING_FRAMINGS if any(x in f.added_chars for f in suite.families)]
    lines += ["", "Characters each inserting framing added to the state as shown to a model (framed minus plain "
              "state length; min / median / max over the family's items):", ""]
    lines += _table(["family", *inserting],
                    [(f.name, *(" / ".join(str(f.added_chars[x][i]) for i in (0, len(QUANTILES) // 2, -1))
                                if x in f.added_chars else "-" for x in inserting)) for f in suite.families],
                    right=len(inserting))
    return lines


def _invariance(stats: DatasheetStats) -> list[str]:
    suite = stats.invariance
    if suite is None:
        return ["## Invariance suite", "",
                "Not described in this datasheet: no suite folder was given (`dp datasheet --invariance "
                "datasets/invariance/<version>`).", ""]
    framings = ", ".join(f"`{f}`" for f in suite.framings)
    return [
        f"## Invariance suite (version {suite.version})", "",
        *_q("Why does the suite exist?",
            "A decision has two axes. The contrast groups measure the first: a decision model must *change* its "
            "answer when the decisive fact changes. The suite measures the second: it must *keep* its answer when "
            "nothing decisive changes - the question reworded or asked the other way round, the option keys "
            "renamed, the state padded with text that decides nothing or carrying text that argues for a wrong "
            "option, other questions asked in the same request. Reordering the options, the only robustness "
            "change measured on the core, is one such change among many, and models that pass it can fail the "
            "others."),
        *_q("What does it hold?",
            f"{suite.items} framed items: {suite.base_items} core items of "
            f"{plural(len(suite.families), 'family', 'families')} in {suite.groups} contrast groups of core release "
            f"{suite.core_version}, each written in every framing that applies to it ({framings}; the two negations "
            "and `two-option-choice` for yes/no families only, `typos` and `homoglyphs` where the state has a prose "
            "word they may change). One file per family and a MANIFEST.json with the SHA-256 of every file; a "
            "framed item is a core item with `base`, `framing`, `key_map`, `steer_to` and `companions` added."),
        *_q("How was it made?",
            f"A seeded sample (seed {suite.seed}) of whole contrast groups per family: groups are shuffled within "
            "their level by a stream derived from the seed, and one group of each level is taken in turn until "
            f"the family has at least {suite.base_items_per_family} core items (more where a group overshoots). "
            "Every member of a sampled group is written in every framing by hand-written rules and material per "
            "family (three rewordings, a negated question, renamed keys, reworded option meanings, irrelevant text "
            "of the family's own setting carrying no digit and none of the group's decisive values - before and "
            "after the decisive facts -, a steering note, companion questions) and seeded rules (bare option keys, "
            "typos and look-alike letters in prose words that decide nothing: never a figure, a name, a key, a "
            "decisive value or a word the solver parses); no model wrote or labelled anything. The gold is exact: "
            "`key_map` maps every framed option to the core option with the same decision, and the framed gold "
            "maps to the core gold (flipped under negation). The independent solvers re-derive every framed gold "
            f"from the framed item itself (`dp verify --items datasets/invariance/{suite.version}`), so inserted "
            "text that changed anything decisive would be a disagreement, and the shortcut audit runs on the "
            "framed items (`dp audit`). `dp frame` writes the same bytes on every host; `dp frame --seed N` draws a "
            "fresh suite."),
        *_suite_counts(suite), "",
        *_q("What does it not cover?",
            "- Only the framings above: no paraphrase or translation of the state, no change of option order "
            "(measured on the core), no search for the worst framing of an item.",
            "- Rewordings, irrelevant texts and steering notes are hand-written per family, in English; robustness "
            "to them is not robustness to every phrasing a deployment sees.",
            "- The steering notes are plain arguments for a wrong option inside the state, not optimised attacks.",
            "- Kinds whose interface asks one question per request answer `together` items with the item's own "
            "question (their answers record it); request interference is measured only for kinds that take "
            "several questions.",
            f"- A sample: about {suite.base_items_per_family} core items per family, so per-family intervals are "
            "wide; the macro figures over families are the headline."),
    ]


def _scale(stats: DatasheetStats) -> list[str]:
    """The scale suite's section, when the datasheet describes it (nothing otherwise)."""
    if stats.scale is None:
        return []
    from decisionpivot.datasheet.scale import scale_markdown

    return scale_markdown(stats.scale)


def _collection(stats: DatasheetStats) -> list[str]:
    families = stats.core_manifest.get("families", {})
    versions = sorted({str(e.get("generator_version")) for e in families.values()})
    return [
        "## Collection process", "",
        *_q("How was the data acquired?",
            "Core: generated by one Python module per family from structured cases (seeded `random.Random` per "
            "group, derived by SHA-256 from family, seed and group index), then rendered to text with varied "
            f"wording. Generator version(s): {', '.join(versions) or 'not recorded'}. Reference: converted from "
            "official files whose SHA-256 each task card records."),
        *_q("What sampling strategy was used?",
            "Core: levels and variation types are planned per family (balanced answer classes and gold positions, "
            "boundary cases one unit either side of thresholds). Reference: fixed-seed sampling, optionally "
            "stratified by answer, to the card's target."),
        *_q("Who was involved, and over what timeframe?",
            "No crowdworkers were involved in the core items. The output does not depend on when it is generated: "
            "`dp generate` reproduces the files byte for byte."),
        *_q("Were individuals involved, notified, or asked for consent? Was there an ethical review?",
            "No individuals are the subject of the core items. Reference tasks inherit their sources' collection "
            "processes; no ethical review is recorded in the package metadata."),
    ]


def _preprocessing(stats: DatasheetStats) -> list[str]:
    return [
        "## Preprocessing, cleaning, labelling", "",
        *_q("Was any preprocessing, cleaning or labelling done?",
            "Core: none after generation; labels are computed. Reference: converters map each source record to "
            "state, question, options and answer, decode text (UTF-8 with recorded fallbacks), and sample; labels "
            f"are the sources' (label sources over all cards: {_mapping(stats.card_counts('label_source'))})."),
        *_q("Was the raw data saved?",
            "Core: the generators and seeds are the raw data. Reference: the official files are not copied; their "
            "names and SHA-256 are recorded in the task cards."),
        *_q("Is the software available?",
            "Yes: `decisionpivot` (`dp generate`, `dp verify`, `dp audit`, `dp reconstruct`), Apache-2.0."),
    ]


def _uses() -> list[str]:
    return [
        "## Uses", "",
        *_q("What tasks is the dataset intended for?",
            "Evaluating decision models and LLM-based deciders: item and pair accuracy, pair direction, "
            "selective prediction, calibration (`dp evaluate`, `dp score`)."),
        *_q("What should it not be used for?",
            "- Training, fine-tuning or optimising a model or its prompts on the items, or adding them to training "
            "data: the access conditions allow evaluation use only.",
            "- Claims about real organisations or people: core entities are invented."),
        *_q("Could the composition affect future uses?",
            "Items are English, and core states follow the templates of their generators; results say how a model "
            "decides on these cases, not on every input of its deployment. Fresh draws (`dp generate --seed N`) "
            "check that scores do not depend on one sample."),
    ]


def _distribution(stats: DatasheetStats) -> list[str]:
    redistributed = [c.task for c in stats.cards if c.route == REDISTRIBUTE]
    others = [c.task for c in stats.cards if c.route != REDISTRIBUTE]
    return [
        "## Distribution", "",
        *_q("How is the dataset distributed?",
            "As a gated Hugging Face dataset (access approved by hand; `dp release`, `dp download` verifies every "
            "SHA-256 against the manifest shipped in the package), and reproducibly through the package itself."),
        *_q("Under what licence or terms of use?",
            "Core items: CC BY 4.0 (`licenses/LICENSE-CORE-ITEMS`). Code: Apache-2.0 (`licenses/LICENSE-CODE`). "
            "Reference items keep their sources' terms (`dp licenses` writes the review). Access conditions: "
            + " ".join(ACCESS_CONDITIONS)),
        *_q("Which reference tasks are redistributed?",
            f"Redistributed in the gated dataset ({len(redistributed)}): {', '.join(redistributed) or 'none'}. "
            f"Reconstruct-only ({len(others)}): {', '.join(others) or 'none'}. Routes follow the rules in "
            "`decisionpivot/licenses/routes.py` over each card's licence metadata."),
        *_q("Why are more reference tasks reconstruct-only than the paper's restricted tasks?",
            _restricted_count(stats)),
        *_q("Do export controls or other regulatory restrictions apply?", "None are known."),
    ]


def _restricted_count(stats: DatasheetStats) -> str:
    by_terms = [c for c in stats.cards if c.restriction == RESTRICTED_BY_TERMS]
    by_rules = [c for c in stats.cards if c.restriction == HELD_BACK_BY_RULES]
    held = ", ".join(f"{c.task} ({c.license_class})" for c in by_rules) or "none"
    listed = ", ".join(f"{c.task} ({c.license_class})" for c in by_terms) or "none"
    return (f"The paper reconstructs {PAPER_RESTRICTED_TASKS} restricted reference tasks; the route rules make "
            f"{len(by_terms) + len(by_rules)} reconstruct-only. Restricted by their terms (non-commercial, "
            f"research-only, mixed or unstated; {len(by_terms)}): {listed}. Held back by the rules although their "
            f"licences allow redistribution ({len(by_rules)}): {held}; share-alike licences forbid the added "
            "restrictions of the gated access conditions, and a permissive licence whose redistribution terms are "
            "still to verify waits for that check. The paper does not list its tasks, so equal counts would not "
            "show the same set (`dp licenses` gives the per-task reasons).")


def _maintenance() -> list[str]:
    return [
        "## Maintenance", "",
        *_q("Who maintains the dataset, and how can they be contacted?",
            "The DecisionPivot maintainers, through the issue tracker of the code repository and the discussion "
            "page of the Hugging Face dataset."),
        *_q("Will the dataset be updated?",
            f"Core items are versioned (this is version {BENCHMARK_VERSION}); a change to any generator bumps its "
            "version and the file hashes in MANIFEST.json and dvc.lock. Errata are published as new versions, with "
            "a changelog (CHANGELOG.md: family, what changed, why, items affected); earlier versions stay drawable "
            "byte for byte with their archived generators (`dp generate --version 1.1 --seed N`)."),
        *_q("How can others contribute?",
            "New families follow the family contract (generator, contrast-group builder, independent solver); new "
            "reference tasks add a task card and a converter. Both go through the same verify and audit checks."),
    ]


def datasheet_markdown(stats: DatasheetStats) -> str:
    """The whole datasheet."""
    lines = [
        f"# Datasheet: DecisionPivot {BENCHMARK_VERSION}", "",
        "Generated by `dp datasheet` from the items files and task cards; every number below is computed from "
        "them. Questions follow Gebru et al., \"Datasheets for Datasets\" (CACM 2021).", "",
        *_motivation(stats), *_composition(stats), *_invariance(stats), *_scale(stats), *_collection(stats),
        *_preprocessing(stats),
        *_uses(), *_distribution(stats), *_maintenance(),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def part_summary(part: PartStats) -> str:
    """One line per part, for Croissant record-set descriptions."""
    return (f"{part.kind} {part.name} (layer {part.layer}: {LAYER_NAMES.get(part.layer, '?')}), "
            f"{plural(part.items, 'item')}, {plural(part.groups, 'contrast group')}")
