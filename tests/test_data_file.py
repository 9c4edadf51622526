"""Every way a JSON or YAML file can fail is one error naming the file, in the shared readers and in each reader
using them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from decisionpivot.audit.run import AuditLimits
from decisionpivot.cost.run import read_prices
from decisionpivot.data_file import read_json_file, read_yaml_file
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.systems import load_systems
from decisionpivot.gate.run import gate_params
from decisionpivot.generate.run import read_manifest
from decisionpivot.harness.lm_eval_import import read_json
from decisionpivot.monitor.run import read_certificate, read_csv_sample
from decisionpivot.recalibrate.apply import apply_to_csv
from decisionpivot.release.manifest import read_manifest_file
from decisionpivot.report.deployment_pages import read_deployment
from decisionpivot.score.answers import AnswerFileError, check_items_hash
from decisionpivot.score.certified import read_gate_file

BROKEN: dict[str, tuple[bytes, str]] = {
    "not JSON": (b'{"a": 1,\n  "b": }\n', r":2: not valid JSON \(Expecting value, column 8\)$"),
    "not UTF-8": (b'{"a": "\xff"}', r": not valid UTF-8 \(byte 7: invalid start byte\)$"),
    "nested too deeply": (b"[" * 200_000 + b"]" * 200_000, r": not valid JSON \(nested too deeply\)$"),
    "empty": (b"", r":1: not valid JSON \(Expecting value, column 1\)$"),
}


def test_a_good_file_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"a": [1, 2.5, null, "\u00e9"]}', encoding="utf-8")
    assert read_json_file(path, "a test file") == {"a": [1, 2.5, None, "\u00e9"]}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_file_is_one_line_naming_it(tmp_path: Path, case: str) -> None:
    content, message = BROKEN[case]
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    with pytest.raises(DecisionPivotError, match=f"^{path}{message}") as caught:
        read_json_file(path, "a test file")
    assert "\n" not in str(caught.value)


def test_missing_and_folder_say_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(DecisionPivotError, match=rf"^{tmp_path / 'no.json'}: not found \(what dp x writes\)$"):
        read_json_file(tmp_path / "no.json", "what dp x writes")
    with pytest.raises(DecisionPivotError, match=rf"^{tmp_path}: is a folder, expected a file \(what dp x writes\)$"):
        read_json_file(tmp_path, "what dp x writes")


def test_the_error_class_is_the_callers(tmp_path: Path) -> None:
    with pytest.raises(AnswerFileError):
        read_json_file(tmp_path, "a meta file", AnswerFileError)


def _gate(folder: Path) -> Path:
    return folder / "gate.json"


def _manifest_folder(folder: Path) -> Path:
    return folder / "MANIFEST.json"


def _certificate(folder: Path) -> Path:
    return folder / "certificate.json"


def _release_manifest(folder: Path) -> Path:
    return folder / "release.json"


def _results(folder: Path) -> Path:
    return folder / "results.json"


def _compare(folder: Path) -> Path:
    path = folder / "compare" / "compare.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _meta(folder: Path) -> Path:
    return folder / "policy_case.meta.json"


READERS: dict[str, tuple[Callable[[Path], Path], Callable[[Path, Path], Any]]] = {
    "gate.json (dp score --gate, dp report, dp cost)": (_gate, lambda folder, path: read_gate_file(path)),
    "MANIFEST.json of dp generate": (_manifest_folder, lambda folder, path: read_manifest(folder)),
    "a dp gate certificate (dp monitor)": (_certificate, lambda folder, path: read_certificate(path)),
    "a release manifest (dp verify)": (_release_manifest, lambda folder, path: read_manifest_file(path)),
    "lm-eval's results (dp import lm-eval)": (_results, lambda folder, path: read_json(path)),
    "a deployment report (dp report)": (_compare, lambda folder, path: read_deployment(folder)),
    "an answer file's meta (dp score)": (
        _meta, lambda folder, path: check_items_hash(folder / "policy_case.jsonl", None)),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("case", ["not JSON", "not UTF-8"])
def test_every_reader_refuses_a_broken_file_in_one_line(tmp_path: Path, reader: str, case: str) -> None:
    """Each reader of a file one verb hands to another goes through the shared reader (some used to let a
    non-UTF-8 file or a folder out as a traceback)."""
    where, read = READERS[reader]
    path = where(tmp_path)
    content, message = BROKEN[case]
    path.write_bytes(content)
    with pytest.raises(DecisionPivotError, match=f"^{path}{message}"):
        read(tmp_path, path)


YAML_BROKEN: dict[str, tuple[bytes, str]] = {
    "not YAML": (b"gate:\n  seeds: [1, 2\n",
                 r":3: not valid YAML \(expected ',' or '\]', but got '<stream end>', column 1\)$"),
    "not UTF-8": (b"gate: {seeds: [\xff]}\n", r": not valid UTF-8 \(byte 15: invalid start byte\)$"),
    "a tab indent": (b"gate:\n\tseeds: [1]\n",
                     r":2: not valid YAML \(found character '\\t' that cannot start any token, column 1\)$"),
}


def test_a_good_yaml_file_is_parsed_safely(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("gate: {seeds: [101, 102], delta: 0.05}\n", encoding="utf-8")
    assert read_yaml_file(path, "a test file") == {"gate": {"seeds": [101, 102], "delta": 0.05}}
    path.write_text("", encoding="utf-8")
    assert read_yaml_file(path, "a test file") is None
    path.write_text("x: !!python/object:os.system {}\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=rf"^{path}:1: not valid YAML \(could not determine a constructor"):
        read_yaml_file(path, "a test file")


YAML_READERS: dict[str, Callable[[Path], Any]] = {
    "a cost file (dp cost --costs)": lambda path: read_prices(path, None, None),
    "a params file's gate section (dp gate --params)": gate_params,
    "a params file's audit section (dp audit --params)": AuditLimits.from_params,
}


@pytest.mark.parametrize("reader", sorted(YAML_READERS))
@pytest.mark.parametrize("case", sorted(YAML_BROKEN))
def test_every_yaml_reader_refuses_a_broken_file_in_one_line(tmp_path: Path, reader: str, case: str) -> None:
    """The audit's params reader let every one of these out as a traceback; the cost file's did for non-UTF-8."""
    path = tmp_path / "params.yaml"
    content, message = YAML_BROKEN[case]
    path.write_bytes(content)
    with pytest.raises(DecisionPivotError, match=f"^(--params )?{path}{message}") as caught:
        YAML_READERS[reader](path)
    assert "\n" not in str(caught.value)


def test_an_audit_section_that_is_no_mapping_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "params.yaml"
    path.write_text("audit: [1, 2]\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=r":1: audit: expected the audit: section: .*, got \[1, 2\]$"):
        AuditLimits.from_params(path)


TEXT_READERS: dict[str, Callable[[Path], Any]] = {
    "a labelled sample (dp monitor --csv)": read_csv_sample,
    "a CSV to recalibrate (dp recalibrate apply)": lambda path: apply_to_csv(None, path),  # type: ignore[arg-type]
    "a systems file (dp evaluate --config)": load_systems,
}


@pytest.mark.parametrize("reader", sorted(TEXT_READERS))
@pytest.mark.parametrize("case", ["not UTF-8", "a folder"])
def test_every_text_reader_names_the_file_it_cannot_read(tmp_path: Path, reader: str, case: str) -> None:
    """A non-UTF-8 CSV or systems file reached the command line's last-resort handler, which names no file."""
    path = tmp_path / "input.txt"
    if case == "a folder":
        path.mkdir()
        message = r": is a folder, expected a file \(.+\)$"
    else:
        path.write_bytes(b"confidence,correct\n0.5,\xff\n")
        message = r": not valid UTF-8 \(byte 23: invalid start byte\)$"
    with pytest.raises(DecisionPivotError, match=f"^{path}{message}"):
        TEXT_READERS[reader](path)


def test_a_yaml_document_keeps_lines_and_refuses_a_key_given_twice(tmp_path: Path) -> None:
    from decisionpivot.data_file import read_yaml_document

    path = tmp_path / "a.yaml"
    path.write_text("a: 1\nb:\n  - x\n  - {c: 2}\n", encoding="utf-8")
    document = read_yaml_document(path, "a test file")
    assert document.data == {"a": 1, "b": ["x", {"c": 2}]}
    assert (document.line(["a"]), document.line(["b", 1, "c"]), document.line(["b", 1, "nothing"])) == (1, 4, 4)
    path.write_text("a: 1\nb:\n  a: 2\na: 3\n", encoding="utf-8")  # a nested "a" is another key
    with pytest.raises(DecisionPivotError, match=rf"^{path}:4: key 'a' given twice \(first on line 1\)"):
        read_yaml_document(path, "a test file")
    bomb = "a: &a [x, x]\n" + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}]\n"
                                      for i in range(20))
    path.write_text(bomb, encoding="utf-8")  # aliases are walked once: no 2**20 blow-up
    assert read_yaml_document(path, "a test file").line(["u"]) == 21
