"""Property tests of the strict-input rule (decisionpivot.user_files): generated cost files, params sections and
CSVs, valid and one edit away from valid (an unknown key, a misspelt family, a non-finite, negative or huge
number, a key or id given twice, a missing column, a BOM, an empty file). Each edited file is refused with one
line naming the file - never a traceback, never accepted; each valid file gives the figures the previous
readers gave (a loop over the same file, written here)."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decisionpivot.audit.run import AuditLimits
from decisionpivot.cost.run import read_prices
from decisionpivot.errors import DecisionPivotError
from decisionpivot.gate.run import gate_params
from decisionpivot.generate.registry import families
from decisionpivot.monitor.run import POOLED, read_csv_sample
from decisionpivot.recalibrate.apply import apply_to_csv
from decisionpivot.recalibrate.map_file import read_map
from decisionpivot.user_files import FRACTION, MAX_PRICE, PRICE, PROBABILITY, RESAMPLES, Bound, check_schema

NEIGHBOURS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                      suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
FAMILIES = sorted(spec.name for spec in families())
HEURISTICS = sorted(f"{spec.name}.{name}" for spec in families() for name in spec.heuristics)

prices = st.one_of(st.integers(0, 10**6), st.floats(0, MAX_PRICE, allow_nan=False))
bad_numbers = st.sampled_from([".nan", ".inf", "-.inf", "-1", "-0.5", "1.0e+13", "1.0e+308", "true", "'12'", "[1]",
                               "{}", "null", "9" * 400])


def one_line_naming(path: Path, call: Any) -> str:
    """The message of the DecisionPivotError ``call()`` raises; it must be one line starting with the path."""
    with pytest.raises(DecisionPivotError) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message and (message.startswith(str(path)) or message.startswith(f"--params {path}")), message
    return message


def misspelt(name: str, known: list[str]) -> st.SearchStrategy[str]:
    """``name`` with one character dropped, doubled or changed: never a known name."""
    edits = st.integers(0, len(name) - 1).flatmap(lambda i: st.sampled_from([
        name[:i] + name[i + 1:], name[:i] + name[i] + name[i:], name[:i] + "x" + name[i + 1:]]))
    return edits.filter(lambda s: s not in known and s.strip() and s != "<<")


# -------------------------------------------------------------------------------------------------- cost files


@st.composite
def cost_files(draw: st.DrawFn) -> dict[str, Any]:
    record: dict[str, Any] = {"wrong": draw(prices), "escalated": draw(prices)}
    chosen = draw(st.lists(st.sampled_from(FAMILIES), unique=True, max_size=4))
    if chosen or draw(st.booleans()):
        record["families"] = {}
        for name in chosen:
            keys = draw(st.sampled_from([("wrong",), ("escalated",), ("wrong", "escalated")]))
            record["families"][name] = {key: draw(prices) for key in keys}
    return record


def reference_prices(record: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """What the previous reader made of a valid file: every family inherits the prices it does not set."""
    base = (float(record["wrong"]), float(record["escalated"]))
    out = {"*": base}
    for name, entry in (record.get("families") or {}).items():
        out[name] = (float(entry.get("wrong", base[0])), float(entry.get("escalated", base[1])))
    return out


@NEIGHBOURS
@given(record=cost_files())
def test_a_valid_cost_file_gives_the_same_prices(tmp_path: Path, record: dict[str, Any]) -> None:
    path = tmp_path / "costs.yaml"
    path.write_text(yaml.safe_dump(record), encoding="utf-8")
    got = read_prices(path, None, None)
    expected = reference_prices(record)
    assert (got.wrong, got.escalated) == expected["*"]
    assert {name: got.of(name) for name in expected if name != "*"} == {k: v for k, v in expected.items() if k != "*"}


@st.composite
def edited_cost_files(draw: st.DrawFn) -> tuple[str, str]:
    """(a cost file one edit away from a valid one, a part of the message that must name the edit)."""
    record = draw(cost_files())
    text = yaml.safe_dump(record)
    edit = draw(st.sampled_from(["unknown key", "misspelt family", "bad number", "family bad number",
                                 "twice", "empty family", "bom", "empty", "not a mapping"]))
    if edit == "unknown key":
        key = draw(st.sampled_from(["wrongs", "escalate", "Wrong", "families_", "currency", "cost"]))
        return text + f"{key}: 1\n", f"unknown key '{key}'"
    if edit == "misspelt family":
        family = draw(st.sampled_from(FAMILIES))
        name = draw(misspelt(family, FAMILIES))
        body = yaml.safe_dump({k: v for k, v in record.items() if k != "families"})
        return body + f"families:\n  {name}: {{wrong: 200}}\n", "unknown key"
    if edit == "bad number":
        key = draw(st.sampled_from(["wrong", "escalated"]))
        body = yaml.safe_dump({k: v for k, v in record.items() if k != key})
        return body + f"{key}: {draw(bad_numbers)}\n", f"{key}: expected a cost per decision from 0 to 1e12"
    if edit == "family bad number":
        body = yaml.safe_dump({k: v for k, v in record.items() if k != "families"})
        family = draw(st.sampled_from(FAMILIES))
        return (body + f"families:\n  {family}:\n    wrong: {draw(bad_numbers)}\n",
                f"families.{family}.wrong: expected a cost per decision")
    if edit == "twice":
        key = draw(st.sampled_from(["wrong", "escalated"]))
        return text + f"{key}: 1\n", f"key '{key}' given twice"
    if edit == "empty family":
        body = yaml.safe_dump({k: v for k, v in record.items() if k != "families"})
        return body + f"families:\n  {draw(st.sampled_from(FAMILIES))}: {{}}\n", "expected a family's wrong:"
    if edit == "bom":
        return "\ufeff" + text, "byte-order mark"
    if edit == "empty":
        return draw(st.sampled_from(["", "\n", "# nothing\n"])), "empty; expected a cost file"
    return draw(st.sampled_from(["- 1\n", "50\n", "wrong\n"])), "expected a cost file"


@NEIGHBOURS
@given(edited=edited_cost_files())
def test_an_edited_cost_file_is_refused_in_one_line(tmp_path: Path, edited: tuple[str, str]) -> None:
    content, needle = edited
    path = tmp_path / "costs.yaml"
    path.write_text(content, encoding="utf-8")
    assert needle in one_line_naming(path, lambda: read_prices(path, None, None))


@NEIGHBOURS
@given(value=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**20, 10**20)))
def test_a_bound_is_one_rule_for_flags_files_and_schemas(value: float) -> None:
    """Bound.holds, the command line's check and the JSON Schema agree on every number (NaN: JSON Schema's own
    ranges let it through; the ``finite`` keyword does not)."""
    for bound in (PRICE, FRACTION, PROBABILITY, RESAMPLES, Bound(-1, 1, "x", low_open=True)):
        holds = bound.holds(value)
        try:
            bound.check(value)
            flag = True
        except ValueError:
            flag = False
        try:
            check_schema(bound.schema(), value, "f", None)
            schema = True
        except DecisionPivotError:
            schema = False
        assert holds == flag == schema, (bound, value)
        if holds:
            assert math.isfinite(value)


# ------------------------------------------------------------------------------------------------- params files


@st.composite
def gate_sections(draw: st.DrawFn) -> dict[str, Any]:
    section: dict[str, Any] = {}
    if draw(st.booleans()):
        section["seeds"] = draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=4, unique=True))
    if draw(st.booleans()):
        section["target_risk"] = draw(st.sampled_from([0.01, 0.05, 0.1, 0.5]))
    if draw(st.booleans()):
        section["delta"] = draw(st.sampled_from([0.05, 0.1, 0.2]))
    if draw(st.booleans()):
        section["resamples"] = draw(st.integers(1, 100_000))
    return section


@NEIGHBOURS
@given(section=gate_sections(), other=st.dictionaries(st.sampled_from(["score", "cost", "evaluate"]),
                                                      st.integers(), max_size=2))
def test_a_valid_gate_section_is_read_as_written(tmp_path: Path, section: dict[str, Any],
                                                 other: dict[str, Any]) -> None:
    """Other sections belong to other verbs and are not read."""
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"gate": section, **other}), encoding="utf-8")
    assert gate_params(path) == section


@NEIGHBOURS
@given(section=gate_sections(), edit=st.sampled_from(["unknown", "seed twice", "negative seed", "risk", "delta",
                                                      "resamples", "no section"]),
       bad=st.sampled_from(["0", "1", "1.5", "-0.1", ".nan", ".inf", "x", "true"]))
def test_an_edited_gate_section_is_refused_in_one_line(tmp_path: Path, section: dict[str, Any], edit: str,
                                                       bad: str) -> None:
    body = yaml.safe_dump({"gate": section})
    lines = {
        "unknown": ("  target_rsk: 0.05\n", "did you mean target_risk?"),
        "seed twice": ("  seeds: [101, 102, 101]\n", "101 given twice"),
        "negative seed": ("  seeds: [-1]\n", "gate.seeds.0: expected a seed"),
        "risk": (f"  target_risk: {bad}\n", "gate.target_risk: expected a fraction between 0 and 1"),
        "delta": (f"  delta: {bad}\n", "gate.delta: expected a fraction between 0 and 1"),
        "resamples": (f"  resamples: {bad if bad not in ('1',) else '0'}\n", "gate.resamples: expected a whole number "
                      "of resamples from 1 to 100,000"),
    }
    path = tmp_path / "params.yaml"
    if edit == "no section":
        path.write_text(body.replace("gate:", "gates:"), encoding="utf-8")
        needle = "no 'gate' section (did you mean gates?)"
    else:
        line, needle = lines[edit]
        key = line.split(":")[0].strip()
        kept = yaml.safe_dump({"gate": {k: v for k, v in section.items() if k != key}})
        path.write_text(kept.rstrip("\n").replace("gate: {}", "gate:") + "\n" + line, encoding="utf-8")
    assert needle in one_line_naming(path, lambda: gate_params(path))


@NEIGHBOURS
@given(limits=st.dictionaries(st.sampled_from(HEURISTICS), st.floats(0, 1), max_size=3),
       margin=st.floats(0, 1), name=st.sampled_from(HEURISTICS).flatmap(lambda h: misspelt(h, HEURISTICS)),
       bad=st.sampled_from(["1.5", "-0.1", ".nan", "x", "true"]))
def test_audit_sections_valid_and_edited(tmp_path: Path, limits: dict[str, float], margin: float, name: str,
                                         bad: str) -> None:
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"audit": {"probe_margin": margin, "heuristic_limits": limits}}), encoding="utf-8")
    read = AuditLimits.from_params(path)
    assert (read.probe_margin, dict(read.heuristic_limits)) == (margin, limits)
    path.write_text(f"audit:\n  heuristic_limits:\n    {name}: 0.3\n", encoding="utf-8")
    assert "unknown key" in one_line_naming(path, lambda: AuditLimits.from_params(path))
    path.write_text(f"audit:\n  probe_margin: {bad}\n", encoding="utf-8")
    assert "audit.probe_margin: expected a probability" in one_line_naming(path, lambda: AuditLimits.from_params(path))


# ---------------------------------------------------------------------------------------------------------- CSVs

confidences = st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 6))


@st.composite
def monitor_rows(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    header = ["confidence", "correct"]
    for extra in ("family", "id"):
        if draw(st.booleans()):
            header.append(extra)
    header = draw(st.permutations(header))
    count = draw(st.integers(1, 12))
    rows = []
    for i in range(count):
        cells = {"confidence": repr(draw(confidences)), "correct": draw(st.sampled_from(["0", "1"])),
                 "family": draw(st.sampled_from(["", *FAMILIES[:3]])), "id": f"item-{i}"}
        rows.append([cells[name] for name in header])
    return list(header), rows


def csv_text(header: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


@NEIGHBOURS
@given(table=monitor_rows())
def test_a_valid_monitor_csv_gives_the_same_samples(tmp_path: Path, table: tuple[list[str], list[list[str]]]) -> None:
    header, rows = table
    path = tmp_path / "traffic.csv"
    path.write_text(csv_text(header, rows), encoding="utf-8")
    samples = {s.family: s for s in read_csv_sample(path, [*FAMILIES, POOLED])}
    expected: dict[str, tuple[list[float], list[bool]]] = {}
    for row in csv.DictReader(io.StringIO(csv_text(header, rows))):
        family = (row.get("family") or "").strip() or POOLED
        expected.setdefault(family, ([], []))[0].append(float(row["confidence"]))
        expected[family][1].append(row["correct"] == "1")
    assert sorted(samples) == sorted(expected)
    for family, (confidence, correct) in expected.items():
        assert samples[family].confidence.tolist() == confidence and samples[family].correct.tolist() == correct


@st.composite
def edited_monitor_csvs(draw: st.DrawFn) -> tuple[str, str]:
    header, rows = draw(monitor_rows())
    edit = draw(st.sampled_from(["id twice", "missing column", "unknown column", "bad confidence", "bad correct",
                                 "ragged", "bom", "empty", "header only", "misspelt family", "column twice"]))
    if edit == "id twice":
        if "id" not in header:
            header = [*header, "id"]
            rows = [[*row, f"item-{i}"] for i, row in enumerate(rows)]
        rows = [*rows, list(rows[draw(st.integers(0, len(rows) - 1))])]
        return csv_text(header, rows), "given twice (first on line"
    if edit == "missing column":
        gone = draw(st.sampled_from(["confidence", "correct"]))
        keep = [i for i, name in enumerate(header) if name != gone]
        return csv_text([header[i] for i in keep], [[row[i] for i in keep] for row in rows]), f"no '{gone}' column"
    if edit == "unknown column":
        name = draw(st.sampled_from(["confidance", "label", "Confidence", "families", "ID"]))
        return csv_text([*header, name], [[*row, "x"] for row in rows]), f"unknown column '{name}'"
    if edit == "bad confidence":
        at = header.index("confidence")
        value = draw(st.sampled_from(["nan", "NaN", "inf", "-inf", "1.5", "-0.1", "", "0,5", "1e400", "0x1"]))
        rows[0][at] = value
        return csv_text(header, rows), "confidence: expected a probability from 0 to 1"
    if edit == "bad correct":
        rows[-1][header.index("correct")] = draw(st.sampled_from(["yes", "2", "", "true", "0.5"]))
        return csv_text(header, rows), "correct: expected 1 or 0"
    if edit == "ragged":
        rows[-1] = [*rows[-1], "extra"]
        return csv_text(header, rows), "cells, but the header has"
    if edit == "bom":
        return "\ufeff" + csv_text(header, rows), "byte-order mark"
    if edit == "empty":
        return "", "empty; expected a header line"
    if edit == "header only":
        return csv_text(header, []), "no rows below the header"
    if edit == "misspelt family":
        if "family" not in header:
            header = [*header, "family"]
            rows = [[*row, ""] for row in rows]
        rows[0][header.index("family")] = draw(st.sampled_from(FAMILIES[:3]).flatmap(lambda f: misspelt(f, FAMILIES)))
        return csv_text(header, rows), "family: unknown family"
    return csv_text([*header, "correct"], [[*row, "1"] for row in rows]), "column 'correct' given twice"


@NEIGHBOURS
@given(edited=edited_monitor_csvs())
def test_an_edited_monitor_csv_is_refused_in_one_line(tmp_path: Path, edited: tuple[str, str]) -> None:
    content, needle = edited
    path = tmp_path / "traffic.csv"
    path.write_text(content, encoding="utf-8")
    assert needle in one_line_naming(path, lambda: read_csv_sample(path, [*FAMILIES, POOLED]))


def _identity_map(path: Path) -> Path:
    record = {"format": "decisionpivot-recalibration", "format_version": 1, "system": "s", "method": "isotonic",
              "temperature": 1.0, "isotonic": {"confidence": [0.0, 1.0], "calibrated": [0.0, 1.0]},
              "fitted_on": {"seeds": [101], "draws": {"101": "a" * 64}, "families": ["policy_case"], "items": 10,
                            "groups": 5, "split": "x", "fingerprints": {"policy_case": "f" * 64}},
              "package_version": "0"}
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


@NEIGHBOURS
@given(table=monitor_rows(), extra=st.sampled_from(["", "note", "timestamp"]))
def test_a_csv_to_recalibrate_keeps_its_other_columns(tmp_path: Path, table: tuple[list[str], list[list[str]]],
                                                      extra: str) -> None:
    """Recalibration passes through every other column; under the identity map the values come back."""
    header, rows = table
    if extra:
        header, rows = [*header, extra], [[*row, f"{extra}-{i}"] for i, row in enumerate(rows)]
    path = tmp_path / "traffic.csv"
    path.write_text(csv_text(header, rows), encoding="utf-8")
    mapping = read_map(_identity_map(tmp_path / "map.json"))
    out = list(csv.DictReader(io.StringIO(apply_to_csv(mapping, path))))
    assert len(out) == len(rows)
    for row, written in zip(rows, out, strict=True):
        cells = dict(zip(header, row, strict=True))
        assert {k: written[k] for k in header} == cells
        assert float(written["recalibrated_confidence"]) == pytest.approx(float(cells["confidence"]), abs=1e-6)


@NEIGHBOURS
@given(edit=st.sampled_from(["nan knot", "knot above 1", "temperature", "unknown key", "fitted_on key"]))
def test_an_edited_map_is_refused_in_one_line(tmp_path: Path, edit: str) -> None:
    """A hand-edited map: a NaN knot passed the increasing check (NaN compares false) and was applied."""
    path = _identity_map(tmp_path / "map.json")
    record = json.loads(path.read_text(encoding="utf-8"))
    if edit == "nan knot":
        record["isotonic"]["calibrated"] = [0.0, float("nan")]
    elif edit == "knot above 1":
        record["isotonic"]["calibrated"] = [0.0, 1.5]
    elif edit == "temperature":
        record["temperature"] = 1e-300
    elif edit == "unknown key":
        record["methd"] = "isotonic"
    else:
        record["fitted_on"]["seed"] = [1]
    path.write_text(json.dumps(record), encoding="utf-8")
    one_line_naming(path, lambda: read_map(path))



def test_a_yaml_merge_key_is_refused(tmp_path: Path) -> None:
    """Red team, wave 5: `wrong: 50` then `<<: {wrong: 7}` priced at 50 without a word (a merged key gives way to
    the mapping's own); a key given twice is refused, so a merge is too, naming the line."""
    from decisionpivot.data_file import read_yaml_document

    path = tmp_path / "costs.yaml"
    path.write_text("wrong: 50\n<<: {wrong: 7, escalated: 2}\n")
    with pytest.raises(DecisionPivotError, match=r"costs.yaml:2: a YAML merge key"):
        read_yaml_document(path, "costs file")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.text(min_size=1, max_size=8), depth=st.integers(0, 3))
def test_a_json_key_given_twice_is_refused_at_any_depth(tmp_path: Path, key: str, depth: int) -> None:
    """JSON keeps the last of two equal keys without a word; every JSON file the package reads (meta files,
    manifests: read_json_file) and every answer record goes through one hook that refuses it, at any depth."""
    from decisionpivot.data_file import read_json_file

    inner = "{" + f"{json.dumps(key)}: 1, {json.dumps(key)}: 2" + "}"
    for _ in range(depth):
        inner = '{"a": [' + inner + "]}"
    path = tmp_path / "meta.json"
    path.write_text(inner, encoding="utf-8")
    with pytest.raises(DecisionPivotError, match="given twice"):
        read_json_file(path, "meta file")
    path.write_text(inner.replace(": 2", ": 2, " + json.dumps(key + "x") + ": 3").replace(
        f"{json.dumps(key)}: 2", f"{json.dumps(key + 'y')}: 2"), encoding="utf-8")
    read_json_file(path, "meta file")  # distinct keys read as they are
