"""The datasheet's numbers equal counts computed from the items; the Croissant file validates offline."""

from __future__ import annotations

import hashlib
import json
import socket
from collections import Counter
from pathlib import Path

import pytest

from decisionpivot.datasheet import write_datasheet
from decisionpivot.datasheet.stats import INSERTING_FRAMINGS
from decisionpivot.frame.framings import SUITE_VERSION
from decisionpivot.items import read_items, render_state
from decisionpivot.reconstruct.card import all_cards
from tests.release.conftest import sample_cards, write_core, write_reference

REPO = Path(__file__).resolve().parents[2]
REAL_REFERENCE = REPO / "datasets" / "reference"


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path, dict]:
    cards = sample_cards()
    core = write_core(tmp_path / "core", {"alpha_check": ("A", 12), "beta_check": ("D", 9)})
    reference = write_reference(tmp_path / "reference", ["open_task", "nc_task"])
    return core, reference, cards


def table_rows(markdown: str, header_start: str) -> list[list[str]]:
    """Cells of the rows of the first table whose header starts with ``header_start``."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def mapping(counter: Counter) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted((str(k), v) for k, v in counter.items()))


def expected_rows(folder: Path, names: list[str], kind: str) -> dict[str, list[str]]:
    rows = {}
    for name in names:
        items = read_items(folder / f"{name}.jsonl")
        levels = Counter("(none)" if i.level is None else i.level for i in items)
        options = Counter(len(i.options) for i in items)
        groups = len({i.group for i in items if i.group})
        rows[name] = [kind, name, items[0].layer, str(len(items)), str(groups), mapping(levels), mapping(options)]
    return rows


def check_counts(sheet: str, core: Path, reference: Path, cards: dict) -> None:
    manifest = json.loads((core / "MANIFEST.json").read_text())
    present = [t for t in sorted(cards) if (reference / f"{t}.jsonl").exists()]
    want = expected_rows(core, list(manifest["families"]), "core") | expected_rows(reference, present, "reference")
    got = {row[1]: row for row in table_rows(sheet, "| part | name |")}
    assert got == want
    lengths = {row[0]: row for row in table_rows(sheet, "| name | min |")}
    for name in want:
        folder = core if name in manifest["families"] else reference
        sizes = sorted(len(render_state(i.state)) for i in read_items(folder / f"{name}.jsonl"))
        assert int(lengths[name][1]) == sizes[0] and int(lengths[name][5]) == sizes[-1]
        assert sizes[(len(sizes) - 1) // 2] <= int(lengths[name][3]) <= sizes[len(sizes) // 2]
    classes = Counter(c.license.license_class for c in cards.values())
    assert f"- licence classes: {mapping(classes)}" in sheet
    assert f"- label sources: {mapping(Counter(c.label_source for c in cards.values()))}" in sheet
    core_total = sum(len(read_items(core / e["file"])) for e in manifest["families"].values())
    assert f"{core_total} core items" in sheet


def test_datasheet_numbers_equal_counts_from_the_items(inputs, tmp_path: Path) -> None:
    core, reference, cards = inputs
    sheet, _ = write_datasheet(core, reference, tmp_path / "out", cards=cards)
    text = sheet.read_text(encoding="utf-8")
    check_counts(text, core, reference, cards)
    for section in ("## Motivation", "## Composition", "## Collection process", "## Preprocessing",
                    "## Uses", "## Distribution", "## Maintenance"):
        assert section in text
    assert "Redistributed in the gated dataset (3): absent_task, mit_task, open_task." in text
    assert "Reconstruct-only (4): nc_task, odd_task, sa_task, unstated_task." in text
    assert "alpha_check" in text and "| nc_task |" in text


def test_datasheet_on_generated_items(tmp_path: Path) -> None:
    """Real generated items (two families drawn here, so the test runs on a fresh clone too)."""
    from decisionpivot import RELEASE_SEED
    from decisionpivot.generate.run import write_family_files

    core = tmp_path / "core"
    write_family_files(core, RELEASE_SEED, ["fact_answerable", "policy_case"])
    sheet, _ = write_datasheet(core, REAL_REFERENCE, tmp_path / "out")
    check_counts(sheet.read_text(encoding="utf-8"), core, REAL_REFERENCE, all_cards())


def test_output_is_deterministic(inputs, tmp_path: Path) -> None:
    core, reference, cards = inputs
    first = [p.read_bytes() for p in write_datasheet(core, reference, tmp_path / "a", cards=cards)]
    second = [p.read_bytes() for p in write_datasheet(core, reference, tmp_path / "b", cards=cards)]
    assert first == second


def test_no_reference_folder_lists_every_task_as_absent(inputs, tmp_path: Path) -> None:
    """reference_dir None reads no reference items: the same bytes as an empty folder."""
    core, _, cards = inputs
    empty = tmp_path / "empty"
    empty.mkdir()
    none = [p.read_bytes() for p in write_datasheet(core, None, tmp_path / "none", cards=cards)]
    assert none == [p.read_bytes() for p in write_datasheet(core, empty, tmp_path / "empty-out", cards=cards)]
    assert "| reference |" not in none[0].decode()


def test_cli_reference_empty_means_none_not_the_current_folder(
    inputs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dp datasheet --reference ""` (the DVC datasheet stage) must not read <task>.jsonl from the current
    folder, which Path("") would be."""
    from decisionpivot.cli import main

    core = inputs[0]
    cwd = write_reference(tmp_path / "cwd", ["xstest"])  # a real card's file where Path("") would look
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(cwd)
    main(["datasheet", "--core", str(core), "--reference", "", "--out", str(tmp_path / "a")])
    main(["datasheet", "--core", str(core), "--reference", str(tmp_path / "empty"), "--out", str(tmp_path / "b")])
    main(["datasheet", "--core", str(core), "--reference", str(cwd), "--out", str(tmp_path / "c")])
    for name in ("DATASHEET.md", "croissant.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert "| reference | xstest |" not in (tmp_path / "a" / "DATASHEET.md").read_text(encoding="utf-8")
    assert "| reference | xstest |" in (tmp_path / "c" / "DATASHEET.md").read_text(encoding="utf-8")


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection attempt fails: validation must work offline."""

    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_croissant_validates_offline_with_rai_fields(inputs, tmp_path: Path, no_network) -> None:
    mlc = pytest.importorskip("mlcroissant")
    core, reference, cards = inputs
    _, path = write_datasheet(core, reference, tmp_path / "out", cards=cards)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    for key in ("rai:dataCollection", "rai:dataCollectionType", "rai:dataAnnotationProtocol", "rai:dataBiases",
                "rai:dataLimitations", "rai:dataUseCases", "rai:personalSensitiveInformation",
                "rai:dataSocialImpact", "rai:dataReleaseMaintenancePlan", "rai:dataPreprocessingProtocol"):
        assert document[key], key
    dataset = mlc.Dataset(jsonld=path)  # raises ValidationError on any error
    metadata = dataset.metadata
    assert metadata.data_collection and metadata.data_biases and metadata.personal_sensitive_information
    assert [rs.name for rs in metadata.record_sets] == ["alpha_check", "beta_check", "nc_task", "open_task"]
    records = list(dataset.records("beta_check"))
    assert len(records) == 9
    assert sorted(r["beta_check/id"].decode() for r in records) == [f"beta_check:{i:05d}" for i in range(9)]
    for entry in document["distribution"]:
        assert (path.parent / entry["contentUrl"]).exists()


def test_datasheet_states_the_papers_restricted_count_and_the_tasks_between(inputs, tmp_path: Path) -> None:
    from decisionpivot.licenses.routes import PAPER_RESTRICTED_TASKS

    core, reference, cards = inputs
    write_datasheet(core, reference, tmp_path / "out", cards=cards)
    sheet = (tmp_path / "out" / "DATASHEET.md").read_text(encoding="utf-8")
    assert (f"The paper reconstructs {PAPER_RESTRICTED_TASKS} restricted reference tasks; the route rules make 3 "
            "reconstruct-only.") in sheet
    assert "(non-commercial, research-only, mixed or unstated; 2): nc_task (non-commercial), unstated_task (unstated)" \
        in sheet
    assert "allow redistribution (1): sa_task (share-alike);" in sheet


# ------------------------------------------------------------------------------------- invariance suite

SUITE_FAMILIES = ("fact_answerable", "policy_case")


@pytest.fixture(scope="module")
def real_suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two real families of the release and a small suite framed from them by `dp frame`'s own code."""
    from tests.conftest import write_small_suite

    return write_small_suite(tmp_path_factory.mktemp("core"), tmp_path_factory.mktemp("invariance"), SUITE_FAMILIES)


def test_datasheet_describes_the_suite_with_numbers_from_its_files(real_suite, tmp_path: Path) -> None:
    core, suite = real_suite
    sheet, _ = write_datasheet(core, None, tmp_path / "out", cards={}, invariance_dir=suite)
    text = sheet.read_text(encoding="utf-8")
    manifest = json.loads((suite / "MANIFEST.json").read_text(encoding="utf-8"))
    assert f"## Invariance suite (version {manifest['version']})" in text
    for question in ("Why does the suite exist?", "How was it made?", "What does it not cover?"):
        assert f"**{question}**" in text
    assert f"A seeded sample (seed {manifest['seed']}) of whole contrast groups" in text
    assert f"until the family has at least {manifest['base_items_per_family']} core items" in text
    framings = manifest["framings"]
    rows = {row[0]: row for row in table_rows(text, "| family | layer | core items | groups |")}
    total = 0
    for name in SUITE_FAMILIES:
        items = read_items(suite / f"{name}.jsonl")
        counts = Counter(i.extra["framing"] for i in items)
        want = [name, items[0].layer, str(len({i.extra["base"] for i in items})), str(len({i.group for i in items})),
                *(str(counts[f]) for f in framings), str(len(items))]
        assert rows[name] == want
        total += len(items)
        plain = {i.extra["base"]: len(render_state(i.state)) for i in items if i.extra["framing"] == "plain"}
        added = {row[0]: row for row in table_rows(text, f"| family | {INSERTING_FRAMINGS[0]} |")}[name]
        for column, framing in enumerate(INSERTING_FRAMINGS, 1):
            sizes = sorted(len(render_state(i.state)) - plain[i.extra["base"]] for i in items
                           if i.extra["framing"] == framing)
            low, middle, high = (int(v) for v in added[column].split(" / "))
            assert (low, high) == (sizes[0], sizes[-1])
            assert sizes[(len(sizes) - 1) // 2] <= middle <= sizes[len(sizes) // 2]
    assert counts["negation"] == 0 and Counter(i.extra["framing"] for i in
                                               read_items(suite / "fact_answerable.jsonl"))["negation"] > 0
    assert f"{total} framed items" in text and f"The invariance suite adds {total} framed items" in text


def test_datasheet_without_a_suite_says_so(inputs, tmp_path: Path) -> None:
    core, reference, cards = inputs
    sheet, _ = write_datasheet(core, reference, tmp_path / "out", cards=cards)
    assert "## Invariance suite\n\nNot described in this datasheet: no suite folder was given" in sheet.read_text()


def test_datasheet_refuses_a_suite_of_another_core_or_a_changed_file(real_suite, inputs, tmp_path: Path) -> None:
    from decisionpivot.errors import DecisionPivotError

    core, suite = real_suite
    other_core = inputs[0]
    with pytest.raises(DecisionPivotError, match=r"the suite was drawn from a core whose MANIFEST\.json"):
        write_datasheet(other_core, None, tmp_path / "a", cards={}, invariance_dir=suite)
    changed = tmp_path / "changed"
    changed.mkdir()
    for path in suite.iterdir():
        (changed / path.name).write_bytes(path.read_bytes())
    lines = (changed / "policy_case.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (changed / "policy_case.jsonl").write_text("".join(lines[:-1]), encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=r"policy_case\.jsonl: SHA-256 \w+ and \d+ items, .*MANIFEST\.json "
                                                 r"records"):
        write_datasheet(core, None, tmp_path / "b", cards={}, invariance_dir=changed)
    with pytest.raises(DecisionPivotError, match=r"no invariance suite here"):
        write_datasheet(core, None, tmp_path / "c", cards={}, invariance_dir=tmp_path / "nowhere")


def test_cli_invariance_option(real_suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--invariance DIR` describes the suite; `--invariance ""` and no suite at the default folder describe none."""
    from decisionpivot.cli import main

    core, suite = real_suite
    monkeypatch.chdir(tmp_path)  # no datasets/invariance/<version> here
    main(["datasheet", "--core", str(core), "--reference", "", "--out", str(tmp_path / "a")])
    main(["datasheet", "--core", str(core), "--reference", "", "--invariance", "", "--out", str(tmp_path / "b")])
    main(["datasheet", "--core", str(core), "--reference", "", "--invariance", str(suite), "--out",
          str(tmp_path / "c")])
    for name in ("DATASHEET.md", "croissant.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert "Not described in this datasheet" in (tmp_path / "b" / "DATASHEET.md").read_text(encoding="utf-8")
    assert f"## Invariance suite (version {SUITE_VERSION})" in (tmp_path / "c" / "DATASHEET.md").read_text(
        encoding="utf-8")


def test_croissant_lists_the_suite_and_validates_offline(real_suite, tmp_path: Path, no_network) -> None:
    mlc = pytest.importorskip("mlcroissant")
    core, suite = real_suite
    _, path = write_datasheet(core, None, tmp_path / "out", cards={}, invariance_dir=suite)
    document = json.loads(path.read_text(encoding="utf-8"))
    files = {entry["@id"]: entry for entry in document["distribution"]}
    for name in SUITE_FAMILIES:
        entry = files[f"invariance/{name}.jsonl"]
        assert entry["sha256"] == hashlib.sha256((suite / f"{name}.jsonl").read_bytes()).hexdigest()
        assert (path.parent / entry["contentUrl"]).resolve() == (suite / f"{name}.jsonl").resolve()
    dataset = mlc.Dataset(jsonld=path)  # raises ValidationError on any error
    names = [rs.name for rs in dataset.metadata.record_sets]
    assert names == [*SUITE_FAMILIES, *(f"invariance-{n}" for n in SUITE_FAMILIES)]
    records = list(dataset.records("invariance-policy_case"))
    items = read_items(suite / "policy_case.jsonl")
    assert len(records) == len(items)
    assert Counter(r["invariance-policy_case/framing"].decode() for r in records) == \
        Counter(i.extra["framing"] for i in items)
    assert {r["invariance-policy_case/base"].decode() for r in records} == {i.extra["base"] for i in items}
