"""``croissant.json``: Croissant 1.1 metadata (JSON-LD) with the Responsible-AI (RAI) fields.

One ``cr:FileObject`` per items file (SHA-256, content URL relative to the Croissant file) and one
``cr:RecordSet`` per family/task with the item fields. The ``@context`` is written inline (the
Croissant 1.1 context), so validators need no network to expand it:
``mlcroissant.Dataset(jsonld="datasheet/croissant.json")`` validates it offline.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.datasheet.render import LAYER_NAMES, part_summary, plural
from decisionpivot.datasheet.stats import DatasheetStats, PartStats, SuiteFamilyStats, SuiteStats
from decisionpivot.frame.framings import FRAMINGS
from decisionpivot.licenses.fulltext import CANONICAL_URLS, CORE_ITEMS_SPDX
from decisionpivot.release.datacard import ACCESS_CONDITIONS

CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "arrayShape": "cr:arrayShape",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "containedIn": "cr:containedIn",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isArray": "cr:isArray",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
"""The Croissant 1.1 JSON-LD context, inline (no fetch needed)."""

FIELDS = (
    ("id", "sc:Text", "Item id: <family or task>:<index>."),
    ("family", "sc:Text", "Core family or reference task."),
    ("layer", "sc:Text", "Decision layer A-G."),
    ("group", "sc:Text", "Contrast group id (members differ only in the decisive fact); empty if ungrouped."),
    ("level", "sc:Integer", "Difficulty level 1-3 (core items)."),
    ("variation", "sc:Text", "Type of the pivotal variation of this member."),
    ("domain", "sc:Text", "Invented-world domain (core items)."),
    ("question", "sc:Text", "The typed question."),
    ("answer", "sc:Text", "Gold option key."),
)
"""Item fields exposed as Croissant fields (``state`` and ``options`` are described in the record-set text)."""


def _file_object(part: PartStats, out_dir: Path) -> dict[str, Any]:
    return {
        "@type": "cr:FileObject",
        "@id": f"{part.kind}/{part.name}.jsonl",
        "name": f"{part.kind}/{part.name}.jsonl",
        "description": part_summary(part),
        "contentUrl": Path(os.path.relpath(part.path.resolve(), out_dir.resolve())).as_posix(),
        "contentSize": f"{part.bytes} B",
        "encodingFormat": "application/jsonlines",
        "sha256": part.sha256,
    }


def _record_set(part: PartStats) -> dict[str, Any]:
    file_id = f"{part.kind}/{part.name}.jsonl"
    fields = [{
        "@type": "cr:Field",
        "@id": f"{part.name}/{name}",
        "name": name,
        "description": description,
        "dataType": data_type,
        "source": {"fileObject": {"@id": file_id}, "extract": {"column": name}},
    } for name, data_type, description in FIELDS]
    return {
        "@type": "cr:RecordSet",
        "@id": part.name,
        "name": part.name,
        "description": (f"{part_summary(part)}. Each record also has `state` (text or a JSON object) and "
                        f"`options` (ordered key/meaning pairs; {', '.join(part.option_counts)} options per item)."),
        "key": {"@id": f"{part.name}/id"},
        "field": fields,
    }


SUITE_FIELDS = (
    ("base", "sc:Text", "Id of the core item this item frames."),
    ("framing", "sc:Text", f"How the core item is asked: one of {', '.join(FRAMINGS)}."),
    ("steer_to", "sc:Text", "For steering items, the option key the inserted note argues for (never the gold); "
                            "empty otherwise."),
)
"""Fields a framed item adds (``key_map`` and ``companions`` are described in the record-set text)."""
SCALE_FIELD = ("question_type", "sc:Text", "\"score\": the options are the levels of an ordered scale, lowest first.")
"""The field a score item adds (the scale suite)."""
SUITE_PREFIX = "invariance"
"""Folder of the suite's files and prefix of its record sets (``invariance-<family>``, as the release's configs)."""


def _suite_file_object(part: SuiteFamilyStats, out_dir: Path) -> dict[str, Any]:
    return {
        "@type": "cr:FileObject",
        "@id": f"{SUITE_PREFIX}/{part.name}.jsonl",
        "name": f"{SUITE_PREFIX}/{part.name}.jsonl",
        "description": (f"invariance suite {part.name} (layer {part.layer}: {LAYER_NAMES.get(part.layer, '?')}), "
                        f"{plural(part.items, 'framed item')} of {plural(part.base_items, 'core item')} in "
                        f"{plural(part.groups, 'contrast group')}"),
        "contentUrl": Path(os.path.relpath(part.path.resolve(), out_dir.resolve())).as_posix(),
        "contentSize": f"{part.bytes} B",
        "encodingFormat": "application/jsonlines",
        "sha256": part.sha256,
    }


def _suite_record_set(part: SuiteFamilyStats, suite: SuiteStats) -> dict[str, Any]:
    name = f"{SUITE_PREFIX}-{part.name}"
    file_id = f"{SUITE_PREFIX}/{part.name}.jsonl"
    fields = [{
        "@type": "cr:Field",
        "@id": f"{name}/{field}",
        "name": field,
        "description": description,
        "dataType": data_type,
        "source": {"fileObject": {"@id": file_id}, "extract": {"column": field}},
    } for field, data_type, description in (*FIELDS, *SUITE_FIELDS)]
    framings = ", ".join(f"{framing}: {count}" for framing, count in part.framings.items())
    return {
        "@type": "cr:RecordSet",
        "@id": name,
        "name": name,
        "description": (f"Invariance suite {suite.version}, family {part.name}: {part.base_items} core items of "
                        f"{part.groups} whole contrast groups (seed {suite.seed}), each in every framing ({framings}). "
                        "Each record is a core item asked another way, with exact gold; it also has `state`, "
                        "`options`, `key_map` (framed option key -> core option key with the same meaning) and "
                        "`companions` (further questions of the together framing, else null)."),
        "key": {"@id": f"{name}/id"},
        "field": fields,
    }


def _rai(stats: DatasheetStats) -> dict[str, Any]:
    label_sources = stats.card_counts("label_source")
    return {
        "rai:dataCollection": (
            f"Core ({stats.core_items} items): generated by seeded Python generators from structured cases with "
            "invented entities, rendered to text with varied wording; gold answers are computed. Reference "
            f"({stats.reference_items} items built here): converted from official public test files whose SHA-256 "
            "the task cards record, sampled with fixed seeds."
            + ("" if stats.invariance is None else
               f" Invariance suite ({stats.invariance.items} items): a seeded sample of whole core contrast groups, "
               "every member asked in every framing by hand-written rules; gold follows exactly from the core "
               "gold.")),
        "rai:dataCollectionType": ["Software Collection", "Secondary Data Analysis"],
        "rai:dataCollectionMissingData": "Core items have no missing fields; some reference items have a null "
                                         "answer and are scored by another label (e.g. success_rate).",
        "rai:dataCollectionRawData": "Core: the generators and seeds (reproducible byte for byte). Reference: the "
                                     "official source files, identified by SHA-256 in the task cards.",
        "rai:dataPreprocessingProtocol": [
            "Reference converters map each source record to state, question, options and answer, decode text, and "
            "sample with the card's seed; reconstruction verifies source hashes, item counts and output hashes."],
        "rai:dataAnnotationProtocol": [
            "Core labels are computed by the generators and re-derived by independent solvers (100% agreement).",
            "Reference labels are the sources' own: " + ", ".join(f"{k}: {v} tasks" for k, v in label_sources.items())
            + " (H human, P programmatic, M mixed)."],
        "rai:annotationsPerItem": "One gold option per item (core: computed; reference: as published).",
        "rai:machineAnnotationTools": ["decisionpivot generators and solvers (dp generate, dp verify)"],
        "rai:dataBiases": [
            "Core states follow generator templates in English over a fixed set of invented domains; answer classes "
            "and gold positions are balanced by construction, and content-blind probes are audited (dp audit).",
            "Reference tasks inherit their sources' biases."],
        "rai:dataLimitations": [
            "English only; results describe decisions on these cases, not every input of a deployment.",
            "Reconstruct-only reference tasks require the user's own download of the official files."],
        "rai:dataUseCases": [f"Evaluation of decision models; conditions: {' '.join(ACCESS_CONDITIONS)}"],
        "rai:dataSocialImpact": "Measures whether decision components follow the decisive fact; misuse as training "
                                "data would inflate scores, hence the access conditions.",
        "rai:personalSensitiveInformation": [
            "Core items: none (invented entities, no third-party text).",
            "Layer B reference tasks contain harmful or offensive text as classification input."],
        "rai:dataReleaseMaintenancePlan": (
            f"Versioned releases (core version {BENCHMARK_VERSION}); each release ships a manifest of SHA-256 "
            "hashes; errata are published as new versions; earlier versions remain reproducible."),
    }


def croissant(stats: DatasheetStats, out_dir: Path) -> dict[str, Any]:
    """The Croissant JSON-LD document; content URLs are relative to ``out_dir``."""
    parts = stats.core + stats.reference
    suite = stats.invariance
    suite_parts = () if suite is None else suite.families
    layers = sorted({p.layer for p in parts})
    licences = [CANONICAL_URLS[CORE_ITEMS_SPDX]]
    document: dict[str, Any] = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": "DecisionPivot",
        "description": ("A diagnostic benchmark for decision models in LLM systems, covering decision layers "
                        + "; ".join(f"{k} {LAYER_NAMES[k]}" for k in layers) + f". {stats.core_items} core items "
                        f"in {plural(len(stats.core), 'family', 'families')} and {stats.reference_items} reference "
                        f"items in {plural(len(stats.reference), 'task')}."
                        + ("" if suite is None else
                           f" The invariance suite {suite.version} asks {suite.base_items} of the core items in "
                           f"every framing ({suite.items} items): wording, negation, label names, option meanings, "
                           "typos and look-alike letters, irrelevant text before and after the facts, steering "
                           "text, several questions in one request.")),
        "conformsTo": CONFORMS_TO,
        "citeAs": "DecisionPivot: a diagnostic benchmark for decision models in LLM systems.",
        "creator": {"@type": "sc:Organization", "name": "DecisionPivot maintainers"},
        "keywords": ["benchmark", "evaluation", "decision models", "contrast sets", "LLM systems"],
        "inLanguage": "en",
        "isLiveDataset": False,
        "license": licences,
        "version": f"{BENCHMARK_VERSION}.0",
        **_rai(stats),
        "distribution": [*(_file_object(p, out_dir) for p in parts),
                         *(_suite_file_object(p, out_dir) for p in suite_parts)],
        "recordSet": [*(_record_set(p) for p in parts),
                      *(_suite_record_set(p, suite) for p in suite_parts if suite is not None)],
    }
    if stats.scale is not None:  # the scale suite and its framings (issue 40): absent, the document is unchanged
        from decisionpivot.datasheet.scale import croissant_parts

        files, sets = croissant_parts(stats.scale, out_dir, (*FIELDS, SCALE_FIELD), SUITE_FIELDS[:2])
        document["distribution"] += files
        document["recordSet"] += sets
        document["description"] += (f" The scale suite {stats.scale.version} asks {stats.scale.items} score "
                                    "questions (a level on an ordered scale) with exact gold.")
    return document
