"""The one rule of every verb that reads items (decisionpivot.item_origin): accepted is what this package
re-derives byte for byte from its recorded version, seed and plan, or whose hashes it ships; every other file is
refused, or read under --allow-modified-items. Hypothesis generates the edits a careless user or a tamperer makes
(whitespace anywhere, reordered lines, one character in a state, option, meaning, answer, key_map, steer_to or
companion, a line dropped or duplicated, the manifest rewritten to match): every one is refused."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED, item_origin
from decisionpivot.frame.framings import SUITE_VERSION
from decisionpivot.frame.suite import write_suite
from decisionpivot.generate.registry import families
from decisionpivot.generate.run import write_family_files
from decisionpivot.item_hashes import KNOWN_DRAWS, RELEASED, ModifiedItemsError, known_draw
from decisionpivot.item_origin import MODIFIED, accept_items_file, derived_core, modified_items, modified_note
from decisionpivot.items import sha256_file

FAMILIES = ("fact_answerable", "policy_case")
SEED = 7
"""A seed whose draw the package does not ship: accepted only by drawing it again."""
EDITS = settings(max_examples=60, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A fresh draw of two families (seed 7) and a small invariance suite framed from it (seed 5)."""
    root = tmp_path_factory.mktemp("origin")
    write_family_files(root / "core", SEED, list(FAMILIES))
    write_suite(root / "core", root / "suite", seed=5, families=list(FAMILIES), base_items=12)
    return {"core": root / "core", "suite": root / "suite"}


def _accept(path: Path, allow: bool = False) -> str:
    return accept_items_file(path, sha256_file(path), allow)


def test_a_fresh_draw_and_a_suite_framed_from_it_are_re_derived(folders: dict[str, Path]) -> None:
    for family in FAMILIES:
        assert _accept(folders["core"] / f"{family}.jsonl") == f"re-derived core {BENCHMARK_VERSION} seed {SEED}"
        assert _accept(folders["suite"] / f"{family}.jsonl") == \
            f"re-derived invariance suite {SUITE_VERSION} seed 5 (core {BENCHMARK_VERSION} seed {SEED})"
    entry = json.loads((folders["suite"] / "MANIFEST.json").read_text())["families"]["policy_case"]
    assert entry["core_seed"] == SEED  # what identifies the suite's core draw is recorded


def test_released_and_known_draws_are_accepted_without_drawing_them(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    write_family_files(tmp_path / "release", RELEASE_SEED, ["policy_case"])
    write_family_files(tmp_path / "seed-101", 101, ["policy_case"])

    def no_drawing(*args: Any) -> None:
        raise AssertionError(f"drew {args} again although its hashes ship with the package")

    monkeypatch.setattr(item_origin, "core_draw", no_drawing)
    monkeypatch.setattr(item_origin, "derived_core", no_drawing)
    assert _accept(tmp_path / "release" / "policy_case.jsonl") == f"released core {BENCHMARK_VERSION}"
    assert _accept(tmp_path / "seed-101" / "policy_case.jsonl") == f"re-derived core {BENCHMARK_VERSION} seed 101"


def test_the_known_draws_are_the_pipelines_and_what_this_package_draws() -> None:
    """released/draws/ holds exactly the fresh draws params.yaml names (gate.seeds, monitor.seed), and their entries
    are what this package's generators draw (a stale table would accept what they no longer draw). Every family is
    drawn again with one of the seeds in turn (a generator that changed changes its entry under every seed; drawing
    all 52 took half a minute), every other entry must have the same generator version and plan."""
    params = yaml.safe_load((Path(__file__).resolve().parents[1] / "params.yaml").read_text(encoding="utf-8"))
    seeds = sorted([*params["gate"]["seeds"], params["monitor"]["seed"]])
    shipped = sorted(int(p.name.removesuffix(".MANIFEST.json").split("-seed-")[1])
                     for p in (RELEASED / KNOWN_DRAWS).glob(f"core-{BENCHMARK_VERSION}-seed-*.MANIFEST.json"))
    assert shipped == seeds
    names = sorted(spec.name for spec in families())
    for position, family in enumerate(names):
        drawn = derived_core(BENCHMARK_VERSION, seeds[position % len(seeds)], family)
        for seed in seeds:
            manifest = known_draw(BENCHMARK_VERSION, seed)
            assert manifest is not None and manifest["version"] == BENCHMARK_VERSION
            assert sorted(manifest["families"]) == names
            entry = manifest["families"][family]
            if seed == drawn["seed"]:
                assert entry == drawn, (seed, family)
            else:
                assert {**entry, "sha256": "", "seed": 0} == {**drawn, "sha256": "", "seed": 0}, (seed, family)


def test_a_draw_of_an_archived_edition_is_re_derived_by_its_own_generators(tmp_path: Path) -> None:
    from decisionpivot.generate import editions

    editions.module("1.1", "run").write_family_files(tmp_path, SEED, ["policy_case"], benchmark_version="1.1")
    assert _accept(tmp_path / "policy_case.jsonl") == f"re-derived core 1.1 seed {SEED}"


@pytest.mark.parametrize(("change", "message"), [
    (lambda m: m["families"]["policy_case"].update(generator_version="0.9"),
     r"policy_case drawn by generator version '0\.9', and this package draws core \S+'s policy_case with version "
     r"'\S+': not re-derivable by this package \(drawn by another package version\)"),
    (lambda m: m.update(version="0.7"), r"core version '0\.7' is not re-derivable by this package \(it draws core "),
    (lambda m: m.update(note="trust me"), r"not the manifest `dp generate` writes: unknown key\(s\) 'note'"),
    (lambda m: m["families"]["policy_case"].update(items=601),
     r"the entry of 'policy_case' is not the one `dp generate` writes for these items \(items 601, expected 600\)"),
    (lambda m: m["families"]["policy_case"].update(seed=True), r"seed True is not a seed"),
    (lambda m: m.update(benchmark="DecisionPivot core (mine)"), r"benchmark 'DecisionPivot core \(mine\)': expected"),
])
def test_a_manifest_that_is_not_what_this_package_writes_is_refused(
        folders: dict[str, Path], tmp_path: Path, change: Callable[[dict[str, Any]], None], message: str) -> None:
    folder = tmp_path / "core"
    shutil.copytree(folders["core"], folder)
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    change(manifest)
    (folder / "MANIFEST.json").write_text(json.dumps(manifest))
    with pytest.raises(ModifiedItemsError, match=message):
        _accept(folder / "policy_case.jsonl")
    assert _accept(folder / "policy_case.jsonl", allow=True).startswith(MODIFIED)


def test_a_suite_framed_from_modified_core_items_is_refused_without_the_flag(folders: dict[str, Path],
                                                                             tmp_path: Path) -> None:
    core = tmp_path / "core"
    shutil.copytree(folders["core"], core)
    path = core / "policy_case.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-2]), encoding="utf-8")  # one group dropped
    with pytest.raises(ModifiedItemsError, match=r"policy_case\.jsonl: SHA-256 \w+ is not \w+, the policy_case "
                                                 r"items this package's generators draw for core \S+ with seed 7"):
        write_suite(core, tmp_path / "suite", families=["policy_case"], base_items=12)
    manifest = write_suite(core, tmp_path / "suite", families=["policy_case"], base_items=12,
                           allow_modified_items=True)
    assert list(manifest["core"]["modified"]) == ["policy_case"]
    with pytest.raises(ModifiedItemsError, match=r"framed from core items read with --allow-modified-items "
                                                 r"\(policy_case\)"):
        _accept(tmp_path / "suite" / "policy_case.jsonl")


def test_the_note_every_output_carries() -> None:
    checks = [("b", f"{MODIFIED}: SHA-256 x is not y"), ("a", "released core 1.2"), ("c", f"{MODIFIED}: gone")]
    assert modified_items(checks) == {"b": "SHA-256 x is not y", "c": "gone"}
    assert modified_note(checks) == ("Items read with --allow-modified-items (neither re-derived by this package nor "
                                     "released): b, c; what is computed from them is not a DecisionPivot result.")
    assert modified_note([("a", "released core 1.2")]) is None


# ---------------------------------------------------------------------------------------- generated edits

WHITESPACE = " \t\u00a0\u2009"
SUITE_FIELDS = ("key_map", "steer_to", "companions", "base")
CORE_FIELDS = ("state", "question", "option_key", "meaning", "answer")


@st.composite
def edits(draw: st.DrawFn, suite: bool) -> tuple[str, Callable[[list[str]], list[str]], bool]:
    """(what, an edit of an items file's lines, whether the manifest is rewritten to match)."""
    kind = draw(st.sampled_from(("whitespace", "reorder", "field", "drop", "duplicate")))
    pick = draw(st.integers(min_value=0, max_value=10**6))
    rewrite = draw(st.booleans())
    char = draw(st.sampled_from(WHITESPACE + "xZ\u00e9#"))
    if kind == "whitespace":
        def edit(lines: list[str]) -> list[str]:
            i = pick % len(lines)
            at = pick % len(lines[i])  # anywhere before the line end: inside a string or between tokens
            lines[i] = lines[i][:at] + (char if char in WHITESPACE else " ") + lines[i][at:]
            return lines
        return f"{kind} at {pick}", edit, rewrite
    if kind == "reorder":
        def edit(lines: list[str]) -> list[str]:
            i = pick % len(lines)
            j = (i + 1 + pick // len(lines) % (len(lines) - 1)) % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
            return lines
        return f"{kind} {pick}", edit, rewrite
    if kind in ("drop", "duplicate"):
        def edit(lines: list[str]) -> list[str]:
            i = pick % len(lines)
            return lines[:i] + lines[i + 1:] if kind == "drop" else lines[:i + 1] + lines[i:]
        return f"{kind} {pick}", edit, rewrite
    field = draw(st.sampled_from(CORE_FIELDS + (SUITE_FIELDS if suite else ())))

    def edit(lines: list[str]) -> list[str]:
        candidates = [i for i, line in enumerate(lines) if _changeable(json.loads(line), field)]
        i = candidates[pick % len(candidates)]
        record = json.loads(lines[i])
        _change(record, field, random.Random(pick), char)
        lines[i] = json.dumps(record, ensure_ascii=False, separators=(", ", ": ")) + "\n"
        return lines
    return f"{field} {pick} {char!r}", edit, rewrite


def _changeable(record: dict[str, Any], field: str) -> bool:
    if field == "steer_to":
        return record.get("framing") == "steering"
    if field == "companions":
        return bool(record.get("companions"))
    return field not in SUITE_FIELDS or field in record


def _one_char(text: str, rng: random.Random, char: str) -> str:
    at = rng.randrange(len(text))
    new = char if char != text[at] else ("y" if text[at] != "y" else "z")
    return text[:at] + new + text[at + 1:]


def _change(record: dict[str, Any], field: str, rng: random.Random, char: str) -> None:
    keys = [o["key"] for o in record["options"]]
    if field == "state":
        if isinstance(record["state"], str):
            record["state"] = _one_char(record["state"], rng, char)
        else:
            record["state"] = {**record["state"], "note": char}
    elif field == "question":
        record["question"] = _one_char(record["question"], rng, char)
    elif field == "meaning":
        option = rng.choice(record["options"])
        option["meaning"] = _one_char(option["meaning"], rng, char) if option["meaning"] else char
    elif field == "option_key":
        option = rng.choice(record["options"])
        old = option["key"]
        option["key"] = old + "x"
        record["answer"] = option["key"] if record["answer"] == old else record["answer"]
    elif field == "answer":
        record["answer"] = rng.choice([k for k in keys if k != record["answer"]])
    elif field == "key_map":
        source = list(record["key_map"])
        if len(set(record["key_map"].values())) > 1:
            a, b = rng.sample(source, 2)
            record["key_map"][a], record["key_map"][b] = record["key_map"][b], record["key_map"][a]
        else:
            record["key_map"][source[0]] += "x"
    elif field == "steer_to":
        record["steer_to"] = rng.choice([k for k in keys if k != record["steer_to"]])
    elif field == "companions":
        companion = record["companions"][0]
        companion["answer"] = next(o["key"] for o in companion["options"] if o["key"] != companion["answer"])
    elif field == "base":
        record["base"] = _one_char(record["base"], rng, "9")


def _edited(source: Path, target: Path, family: str, edit: Callable[[list[str]], list[str]], rewrite: bool) -> Path:
    """``source`` copied to ``target`` with ``family``'s file edited (and its manifest entry rewritten to match)."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)
    path = target / f"{family}.jsonl"
    before = path.read_bytes()
    path.write_text("".join(edit(path.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8")
    assert path.read_bytes() != before
    if rewrite:
        manifest = json.loads((target / "MANIFEST.json").read_text(encoding="utf-8"))
        entry = manifest["families"][family]
        entry["sha256"] = sha256_file(path)
        entry["items"] = len(path.read_text(encoding="utf-8").splitlines())
        (target / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return path


@EDITS
@given(edit=edits(suite=False), family=st.sampled_from(FAMILIES))
def test_every_generated_edit_of_a_draw_is_refused(folders: dict[str, Path], tmp_path: Path,
                                                   edit: tuple[str, Callable[[list[str]], list[str]], bool],
                                                   family: str) -> None:
    _, change, rewrite = edit
    path = _edited(folders["core"], tmp_path / "core", family, change, rewrite)
    with pytest.raises(ModifiedItemsError, match=rf"{family}\.jsonl: .*--allow-modified-items"):
        _accept(path)
    assert _accept(path, allow=True).startswith(f"{MODIFIED}: ")


@EDITS
@given(edit=edits(suite=True), family=st.sampled_from(FAMILIES))
def test_every_generated_edit_of_a_suite_is_refused(folders: dict[str, Path], tmp_path: Path,
                                                    edit: tuple[str, Callable[[list[str]], list[str]], bool],
                                                    family: str) -> None:
    _, change, rewrite = edit
    path = _edited(folders["suite"], tmp_path / "suite", family, change, rewrite)
    with pytest.raises(ModifiedItemsError, match=rf"{family}\.jsonl: .*--allow-modified-items"):
        _accept(path)
    assert _accept(path, allow=True).startswith(f"{MODIFIED}: ")


@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=200, max_value=10**6))
def test_what_is_re_derivable_is_accepted_whatever_its_seed(tmp_path: Path, seed: int) -> None:
    """The other side of the rule: a file replaced by another seed's genuine draw and re-manifested as that seed
    is that draw, and accepted as it."""
    folder = tmp_path / f"seed-{seed}"
    write_family_files(folder, seed, ["fact_answerable"])
    assert _accept(folder / "fact_answerable.jsonl") == f"re-derived core {BENCHMARK_VERSION} seed {seed}"
