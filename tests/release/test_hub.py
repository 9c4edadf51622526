"""Release folder, upload and verified download against the local fake hub."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.frame.framings import SUITE_VERSION
from decisionpivot.items import iter_items
from decisionpivot.release.datacard import ACCESS_CONDITIONS
from decisionpivot.release.hub import build_release, download_release, upload_release, verify_folder
from decisionpivot.release.manifest import digest, manifest_bytes, read_manifest_file, release_files
from tests.release.conftest import OWNER, READER, REPO, STRANGER, sha256, write_core, write_suite
from tests.release.fake_hub import FakeHub

INCLUDED = ("mit_task", "open_task")
EXCLUDED = ("nc_task", "sa_task", "unstated_task", "odd_task")


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def built(tmp_path: Path, core_dir: Path, reference_dir: Path, suite_dir: Path, cards):
    return build_release(core_dir, reference_dir, tmp_path / "release", cards=cards, invariance_dir=suite_dir)


# ------------------------------------------------------------------------------------------ build


def test_release_folder_holds_core_and_only_redistributable_reference_tasks(built, cards) -> None:
    files = release_files(built.folder)
    assert {"core/alpha_check.jsonl", "core/beta_check.jsonl", "core/MANIFEST.json"} <= set(files)
    assert sorted(p for p in files if p.startswith("reference/")) == [f"reference/{t}.jsonl" for t in INCLUDED]
    assert sorted(built.manifest["reference"]) == list(INCLUDED)
    assert set(built.manifest["reconstruct_only"]) == set(EXCLUDED)
    assert built.manifest["missing"] == ["absent_task"]
    assert any("absent_task" in note and "missing" in note for note in built.notes)
    assert any("odd_task" in note for note in built.notes)
    # no item (id or text) of a reconstruct-only task appears in any file of the release
    everything = b"".join(folder_bytes(built.folder).values())
    for task in EXCLUDED:
        assert f"secret text {task}".encode() not in everything
        assert f'"{task}:00000"'.encode() not in everything


def test_manifest_lists_every_file_with_hash_size_and_item_count(built) -> None:
    manifest = read_manifest_file(built.folder / "MANIFEST.json")
    listed = manifest["files"]
    assert sorted(listed) == [p for p in release_files(built.folder) if p != "MANIFEST.json"]
    for rel, entry in listed.items():
        path = built.folder / rel
        assert entry["sha256"] == sha256(path)
        assert entry["bytes"] == path.stat().st_size
        if rel.endswith(".jsonl"):
            assert entry["items"] == sum(1 for _ in iter_items(path))
    assert manifest["digest"] == digest(listed)
    assert manifest["core"]["alpha_check"]["items"] == 12
    assert manifest["reference"]["open_task"]["license"] == "CC-BY-4.0"


def test_dataset_card_front_matter_configs_gating_and_licences(built) -> None:
    from huggingface_hub import DatasetCard

    card = DatasetCard((built.folder / "README.md").read_text(encoding="utf-8"))
    meta = card.data.to_dict()
    assert meta["pretty_name"] == "DecisionPivot"
    assert meta["license"][0] == "cc-by-4.0" and "mit" in meta["license"]
    assert {"text-classification", "multiple-choice"} <= set(meta["task_categories"])
    configs = {c["config_name"]: c["data_files"] for c in meta["configs"]}
    assert configs["alpha_check"] == [{"split": "test", "path": "core/alpha_check.jsonl"}]
    assert configs["open_task"] == [{"split": "test", "path": "reference/open_task.jsonl"}]
    assert not set(configs) & set(EXCLUDED)
    for config in meta["configs"]:
        assert (built.folder / config["data_files"][0]["path"]).exists()
    prompt = meta["extra_gated_prompt"]
    assert "evaluation only" in prompt.lower() and "do not train" in prompt
    assert any(kind == "checkbox" and "train" in name for name, kind in meta["extra_gated_fields"].items())
    assert "nc_task" in card.text  # listed under "not in this dataset", with the reconstruct command
    licences = built.folder / "LICENSES"
    assert (licences / "CC-BY-4.0.txt").read_text(encoding="utf-8").startswith("Attribution 4.0 International")
    mit = (licences / "mit_task.md").read_text(encoding="utf-8")
    assert "Copyright (c) 2024 Example Lab" in mit and "Permission is hereby granted" in mit
    assert sorted(p.name for p in licences.iterdir()) == ["CC-BY-4.0.txt", "mit_task.md", "open_task.md"]


def test_dry_run_builds_are_byte_identical(tmp_path: Path, core_dir: Path, reference_dir: Path, suite_dir: Path,
                                           cards) -> None:
    first = build_release(core_dir, reference_dir, tmp_path / "a", cards=cards, invariance_dir=suite_dir)
    second = build_release(core_dir, reference_dir, tmp_path / "b", cards=cards, invariance_dir=suite_dir)
    again = build_release(core_dir, reference_dir, tmp_path / "a", cards=cards,  # rebuild in place
                          invariance_dir=suite_dir)
    assert folder_bytes(first.folder) == folder_bytes(second.folder) == folder_bytes(again.folder)
    assert not list(tmp_path.glob(".*-tmp"))


def test_cli_dry_run_uploads_nothing(tmp_path: Path, core_dir: Path, suite_dir: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "rel"
    main(["release", "--dry-run", "--core", str(core_dir), "--reference", str(tmp_path / "no-reference"),
          "--invariance", str(suite_dir), "--out", str(out)])
    printed = capsys.readouterr().out
    assert "built" in printed and (out / "MANIFEST.json").exists()
    assert not read_manifest_file(out / "MANIFEST.json")["reference"]


def test_build_refuses_changed_core_file_and_foreign_out_folder(tmp_path: Path, core_dir: Path,
                                                               reference_dir: Path, suite_dir: Path, cards) -> None:
    foreign = tmp_path / "my-documents"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("keep me")
    with pytest.raises(DecisionPivotError, match="not a DecisionPivot release folder"):
        build_release(core_dir, reference_dir, foreign, cards=cards, invariance_dir=suite_dir)
    assert (foreign / "thesis.tex").read_text() == "keep me"
    with (core_dir / "alpha_check.jsonl").open("a", encoding="utf-8") as handle:
        handle.write((core_dir / "alpha_check.jsonl").read_text(encoding="utf-8").splitlines()[0] + "\n")
    with pytest.raises(DecisionPivotError, match="differs from"):
        build_release(core_dir, reference_dir, tmp_path / "release", cards=cards, invariance_dir=suite_dir)


# --------------------------------------------------------------------------------- upload/download


def _publish(hub: FakeHub, built, monkeypatch) -> None:
    monkeypatch.setenv("HF_TOKEN", OWNER)
    upload_release(built.folder, REPO, endpoint=hub.url)
    monkeypatch.delenv("HF_TOKEN")


def test_release_then_download_round_trip_verifies_every_hash(built, hub: FakeHub, hf_env: Path, tmp_path: Path,
                                                               monkeypatch) -> None:
    monkeypatch.setenv("HF_TOKEN", OWNER)
    result = upload_release(built.folder, REPO, endpoint=hub.url)
    repo = hub.repos[REPO]
    assert repo.gated == "manual" and repo.main == result.commit
    assert set(hub.head_files(REPO)) == set(release_files(built.folder)) | {".gitattributes"}
    assert all(token == OWNER for _, _, token in hub.log)  # the token of HF_TOKEN was used, on every request

    hub.grant(REPO, READER)
    monkeypatch.setenv("HF_TOKEN", READER)
    out = tmp_path / "downloaded"
    got = download_release(REPO, out, endpoint=hub.url, cache_dir=hf_env, expected=built.manifest)
    assert got.covered and got.commit == result.commit
    assert folder_bytes(out) == folder_bytes(built.folder)
    assert verify_folder(out, built.manifest).ok


def test_upload_twice_mirrors_the_release(built, hub: FakeHub, hf_env: Path, tmp_path: Path, core_dir: Path,
                                          reference_dir: Path, suite_dir: Path, cards, monkeypatch) -> None:
    _publish(hub, built, monkeypatch)
    (reference_dir / "mit_task.jsonl").unlink()
    smaller = build_release(core_dir, reference_dir, tmp_path / "release", cards=cards, invariance_dir=suite_dir)
    _publish(hub, smaller, monkeypatch)
    assert "reference/mit_task.jsonl" not in hub.head_files(REPO)  # stale remote files are deleted
    assert set(hub.head_files(REPO)) == set(release_files(smaller.folder)) | {".gitattributes"}


def test_tampered_file_is_refused_naming_file_and_both_hashes(built, hub: FakeHub, hf_env: Path, tmp_path: Path,
                                                               monkeypatch) -> None:
    _publish(hub, built, monkeypatch)
    original = (built.folder / "core/alpha_check.jsonl").read_bytes()
    forged = original.replace(b'"answer": "no"', b'"answer": "yes"', 1)
    hub.tamper(REPO, "core/alpha_check.jsonl", forged)
    monkeypatch.setenv("HF_TOKEN", OWNER)
    out = tmp_path / "downloaded"
    with pytest.raises(DecisionPivotError) as caught:
        download_release(REPO, out, endpoint=hub.url, cache_dir=hf_env, expected=built.manifest)
    message = str(caught.value)
    import hashlib

    assert "core/alpha_check.jsonl" in message
    assert hashlib.sha256(original).hexdigest() in message and hashlib.sha256(forged).hexdigest() in message
    assert "Nothing was written" in message and not out.exists()


def test_revision_not_covered_by_package_manifest_is_explained(built, hub: FakeHub, hf_env: Path, tmp_path: Path,
                                                                core_dir: Path, monkeypatch) -> None:
    _publish(hub, built, monkeypatch)
    other = json.loads(json.dumps(built.manifest))
    other["release"] = "0.9"
    other["files"]["core/alpha_check.jsonl"]["sha256"] = "0" * 64
    other["digest"] = digest(other["files"])
    monkeypatch.setenv("HF_TOKEN", OWNER)
    with pytest.raises(DecisionPivotError, match="does not cover this revision") as caught:
        download_release(REPO, tmp_path / "out", endpoint=hub.url, cache_dir=hf_env, expected=other)
    assert f"holds release {BENCHMARK_VERSION}" in str(caught.value)  # the built release: this package's version
    assert "agree with its own MANIFEST.json" in str(caught.value)
    got = download_release(REPO, tmp_path / "out", endpoint=hub.url, cache_dir=hf_env, expected=other,
                           allow_uncovered=True)
    assert not got.covered and (tmp_path / "out" / "core/alpha_check.jsonl").exists()


@pytest.mark.parametrize("gate_metadata", [False, True])
@pytest.mark.parametrize("token", [STRANGER, None])
def test_gated_without_access_explains_in_plain_words(built, hf_env: Path, tmp_path: Path, monkeypatch,
                                                      gate_metadata: bool, token: str | None) -> None:
    with FakeHub(write_tokens=(OWNER,), gate_metadata=gate_metadata) as hub:
        _publish(hub, built, monkeypatch)
        if token:
            monkeypatch.setenv("HF_TOKEN", token)
        with pytest.raises(DecisionPivotError) as caught:
            download_release(REPO, tmp_path / "out", endpoint=hub.url, cache_dir=hf_env, expected=built.manifest)
        gated = {status for _, status, code in hub.answers if code == "GatedRepo"}
        assert gated == {401 if token is None else 403}
    message = str(caught.value)
    assert "gated" in message and f"{hub.url}/datasets/{REPO}" in message and "request access" in message
    assert "hf auth login" in message and "HF_TOKEN" in message
    for condition in ACCESS_CONDITIONS:
        assert condition in message
    assert token is None or token not in message
    assert ("the token in HF_TOKEN" if token else "no token") in message
    assert not (tmp_path / "out").exists()


def test_cli_download_gated_prints_clean_error_without_traceback(built, hub: FakeHub, hf_env: Path, tmp_path: Path,
                                                                 monkeypatch, capsys) -> None:
    _publish(hub, built, monkeypatch)
    monkeypatch.setenv("HF_TOKEN", STRANGER)
    monkeypatch.setenv("HF_ENDPOINT", hub.url)  # read at call time, not only when huggingface_hub is imported
    with pytest.raises(SystemExit) as caught:
        main(["download", "--repo-id", REPO, "--out", str(tmp_path / "out")])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "error: " in err and "Traceback" not in err and "gated" in err and STRANGER not in err


def test_cli_release_and_download(tmp_path: Path, core_dir: Path, reference_dir: Path, suite_dir: Path,
                                  hub: FakeHub, hf_env: Path, monkeypatch, capsys) -> None:
    import decisionpivot.item_hashes as item_hashes
    import decisionpivot.release.manifest as manifest_module

    expected_path = tmp_path / "expected_manifest.json"
    monkeypatch.setattr(manifest_module, "EXPECTED_MANIFEST", expected_path)
    monkeypatch.setattr(manifest_module.record_expected_manifest, "__defaults__", (expected_path,))
    released = tmp_path / "released"  # never the package's own released/ folder
    monkeypatch.setattr(item_hashes, "RELEASED", released)
    monkeypatch.setenv("HF_TOKEN", OWNER)
    out = tmp_path / "release"
    main(["release", "--repo-id", REPO, "--core", str(core_dir), "--reference", str(reference_dir),
          "--invariance", str(suite_dir), "--out", str(out), "--endpoint", hub.url, "--record-manifest"])
    printed = capsys.readouterr().out
    assert "uploaded" in printed and "gating: manual" in printed and OWNER not in printed
    version = json.loads((core_dir / "MANIFEST.json").read_text())["version"]
    assert (released / f"core-{version}.MANIFEST.json").read_bytes() == (core_dir / "MANIFEST.json").read_bytes()
    assert (released / f"invariance-{SUITE_VERSION}.MANIFEST.json").read_bytes() == \
        (suite_dir / "MANIFEST.json").read_bytes()
    item_hashes.released_manifest.cache_clear()
    stored = json.loads(expected_path.read_text())
    assert "core" not in stored and "invariance" not in stored  # the released manifests hold those hashes
    assert "invariance/alpha_check.jsonl" in stored["files"]
    assert manifest_module.expected_manifest() == json.loads((out / "MANIFEST.json").read_text())
    main(["download", "--repo-id", REPO, "--out", str(tmp_path / "dl"), "--endpoint", hub.url])
    printed = capsys.readouterr().out
    assert "against the package manifest" in printed
    assert f"--items {tmp_path / 'dl'}/invariance --runs runs-invariance" in printed
    assert folder_bytes(tmp_path / "dl") == folder_bytes(out)


def test_upload_without_token_or_write_access(built, hub: FakeHub, hf_env: Path, monkeypatch) -> None:
    with pytest.raises(DecisionPivotError, match="no Hugging Face token"):
        upload_release(built.folder, REPO, endpoint=hub.url)
    monkeypatch.setenv("HF_TOKEN", READER)
    with pytest.raises(DecisionPivotError) as caught:
        upload_release(built.folder, REPO, endpoint=hub.url)
    assert "refused" in str(caught.value) and READER not in str(caught.value)


def test_shipped_expected_manifest_is_consistent() -> None:
    from decisionpivot.release.manifest import EXPECTED_MANIFEST, expected_manifest, stored_form

    manifest = expected_manifest()
    if manifest is None:
        pytest.skip("no expected manifest recorded")
    assert manifest["digest"] == digest(manifest["files"])
    assert EXPECTED_MANIFEST.read_bytes() == manifest_bytes(stored_form(manifest))


def test_datasets_library_loads_every_config(built, tmp_path: Path, monkeypatch) -> None:
    """Only where `datasets` is installed (not a dependency): the card's configs load as declared."""
    datasets = pytest.importorskip("datasets")
    if not hasattr(datasets, "load_dataset"):  # a generated ./datasets folder shadows the library
        pytest.skip("the `datasets` library is not installed (./datasets is the project's data folder)")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    names = datasets.get_dataset_config_names(str(built.folder))
    suite = {f"invariance-{name}": entry for name, entry in built.manifest["invariance"]["families"].items()}
    assert sorted(names) == sorted([*built.manifest["core"], *suite, *built.manifest["reference"]])
    for name in names:
        loaded = datasets.load_dataset(str(built.folder), name, split="test", cache_dir=str(tmp_path / "ds-cache"))
        entry = built.manifest["core"].get(name) or suite.get(name) or built.manifest["reference"][name]
        assert loaded.num_rows == entry["items"]


def test_unreachable_hub_is_explained(tmp_path: Path, hf_env: Path, built, monkeypatch) -> None:
    monkeypatch.setenv("HF_TOKEN", READER)
    with pytest.raises(DecisionPivotError, match="could not complete the download") as caught:
        download_release(REPO, tmp_path / "out", endpoint="http://127.0.0.1:9", cache_dir=hf_env,
                         expected=built.manifest)
    assert READER not in str(caught.value)


def test_hub_licence_ids() -> None:
    from decisionpivot.release.datacard import hf_license_id, size_category

    assert hf_license_id("CC-BY-4.0") == "cc-by-4.0" and hf_license_id("Apache-2.0") == "apache-2.0"
    assert hf_license_id("MIT + CDLA-Permissive-2.0 (see repo)") == "other"
    assert [size_category(n) for n in (999, 1000, 9999, 40_000)] == ["n<1K", "1K<n<10K", "1K<n<10K", "10K<n<100K"]


def test_cli_release_with_empty_reference_is_core_only(tmp_path: Path, core_dir: Path, reference_dir: Path,
                                                        suite_dir: Path, monkeypatch, capsys) -> None:
    # `--reference ""` means no reference tasks, not the current folder (whose <task>.jsonl would be shipped)
    for source in reference_dir.glob("*.jsonl"):
        (tmp_path / source.name).write_bytes(source.read_bytes())
    monkeypatch.chdir(tmp_path)
    main(["release", "--dry-run", "--core", str(core_dir), "--reference", "", "--invariance", str(suite_dir),
          "--out", str(tmp_path / "rel")])
    manifest = read_manifest_file(tmp_path / "rel" / "MANIFEST.json")
    assert manifest["core"] and not manifest["reference"]
    assert "no reference folder was given" in capsys.readouterr().err


class _EchoingHub:
    """A hub that answers every request 400 and echoes the request headers in its error message and body."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                echo = "; ".join(f"{k.lower()}: {v}" for k, v in self.headers.items())
                body = json.dumps({"error": f"bad request, you sent {echo}"}).encode()
                self.send_response(400)
                self.send_header("Content-Type", "application/json")
                self.send_header("X-Error-Message", f"bad request, you sent {echo}")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_HEAD = do_POST = _answer

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> _EchoingHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


SECRET = "hf_" + "Qw3rTy6uIo9pAs2dFg5hJk8l"


def test_cli_download_never_prints_an_echoed_token(tmp_path: Path, hf_env: Path, monkeypatch, capsys) -> None:
    """Issue 15 item 11: the endpoint's error body echoes `authorization: Bearer hf_...`; dp must not print it."""
    monkeypatch.setenv("HF_TOKEN", SECRET)
    with _EchoingHub() as echo, pytest.raises(SystemExit) as caught:
        main(["download", "--repo-id", REPO, "--out", str(tmp_path / "out"), "--endpoint", echo.url])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.startswith("error: ") and "Traceback" not in err
    assert "authorization" in err.lower() and SECRET not in err and SECRET[3:] not in err, err
    assert not (tmp_path / "out").exists()


def test_hub_messages_are_redacted_without_the_environment(tmp_path: Path, hf_env: Path) -> None:
    """A token passed by the caller (not in HF_TOKEN) is still kept out of the message."""
    with _EchoingHub() as echo, pytest.raises(DecisionPivotError) as caught:
        download_release(REPO, tmp_path / "out", endpoint=echo.url, token=SECRET, cache_dir=hf_env)
    assert "you sent" in str(caught.value) and SECRET not in str(caught.value)
    with _EchoingHub() as echo, pytest.raises(DecisionPivotError) as caught:
        download_release(REPO, tmp_path / "out2", endpoint=echo.url, token="custom-token-777", cache_dir=hf_env)
    assert "you sent" in str(caught.value) and "custom-token-777" not in str(caught.value)


# ------------------------------------------------------------------------------------- invariance suite


def test_release_carries_the_invariance_suite_checked_against_its_manifest(built, suite_dir: Path) -> None:
    suite = json.loads((suite_dir / "MANIFEST.json").read_text(encoding="utf-8"))
    files = release_files(built.folder)
    assert "invariance/MANIFEST.json" in files
    assert (built.folder / "invariance/MANIFEST.json").read_bytes() == (suite_dir / "MANIFEST.json").read_bytes()
    section = built.manifest["invariance"]
    assert (section["version"], section["seed"], section["core"]) == (suite["version"], suite["seed"], suite["core"])
    assert sorted(section["families"]) == sorted(suite["families"]) == ["alpha_check", "beta_check"]
    for name, entry in section["families"].items():
        path = built.folder / entry["file"]
        assert entry["file"] == f"invariance/{name}.jsonl" and path.exists()
        assert entry["sha256"] == sha256(path) == suite["families"][name]["sha256"]
        assert entry["items"] == len(list(iter_items(path))) == built.manifest["files"][entry["file"]]["items"]
        assert entry["base_items"] == suite["families"][name]["base_items"]
    assert not built.notes or not any("invariance" in note for note in built.notes)


def test_dataset_card_lists_the_suite_and_keeps_the_gating_text(built, core_dir: Path, reference_dir: Path,
                                                                 cards, tmp_path: Path) -> None:
    from huggingface_hub import DatasetCard

    card = DatasetCard((built.folder / "README.md").read_text(encoding="utf-8"))
    meta = card.data.to_dict()
    configs = {c["config_name"]: c["data_files"] for c in meta["configs"]}
    assert configs["invariance-alpha_check"] == [{"split": "test", "path": "invariance/alpha_check.jsonl"}]
    assert configs["alpha_check"] == [{"split": "test", "path": "core/alpha_check.jsonl"}]  # no clash
    section = built.manifest["invariance"]
    assert f"## Invariance suite (version {section['version']})" in card.text
    assert f"seeded sample (seed {section['seed']}) of whole contrast groups" in card.text
    assert all(f"`{framing}`" in card.text for framing in section["framings"])
    for name, entry in section["families"].items():
        row = f"| invariance-{name} | {name} | {entry['layer']} | {entry['base_items']} | {entry['groups']} | " \
              f"{entry['items']} |"
        assert row in card.text
    total = sum(e["items"] for e in section["families"].values())
    assert f"{total} items of the invariance suite {section['version']}" in card.text
    without = build_release(core_dir, reference_dir, tmp_path / "no-suite", cards=cards, invariance_dir=None)
    plain = DatasetCard((without.folder / "README.md").read_text(encoding="utf-8")).data.to_dict()
    for key in ("extra_gated_prompt", "extra_gated_fields", "extra_gated_button_content"):
        assert meta[key] == plain[key], key
    assert "Access is gated and approved by hand" in card.text


def test_release_without_a_suite_says_so(tmp_path: Path, core_dir: Path, reference_dir: Path, cards) -> None:
    built = build_release(core_dir, reference_dir, tmp_path / "release", cards=cards, invariance_dir=None)
    assert built.manifest["invariance"] is None
    assert not any(p.startswith("invariance/") for p in release_files(built.folder))
    assert any("invariance suite" in note and "left out" in note for note in built.notes)
    assert "The invariance suite was left out of this build" in (built.folder / "README.md").read_text()


def test_cli_release_needs_the_suite_unless_left_out(tmp_path: Path, core_dir: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)  # no datasets/invariance/<version> here
    with pytest.raises(SystemExit) as caught:
        main(["release", "--dry-run", "--core", str(core_dir), "--reference", "", "--out", str(tmp_path / "rel")])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert f"datasets/invariance/{SUITE_VERSION}/MANIFEST.json" in err and "dp frame" in err and "Traceback" not in err
    main(["release", "--dry-run", "--core", str(core_dir), "--reference", "", "--invariance", "",
          "--out", str(tmp_path / "rel")])
    captured = capsys.readouterr()
    assert "invariance suite families: 0" in captured.out and "invariance suite: no folder was given" in captured.err


def _rewrite_manifest(folder: Path, **changes) -> None:
    path = folder / "MANIFEST.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest.update(changes)
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def test_build_refuses_a_changed_suite_file(tmp_path: Path, core_dir: Path, suite_dir: Path, cards) -> None:
    with (suite_dir / "beta_check.jsonl").open("a", encoding="utf-8") as handle:
        handle.write((suite_dir / "beta_check.jsonl").read_text(encoding="utf-8").splitlines()[0] + "\n")
    with pytest.raises(DecisionPivotError, match=r"beta_check\.jsonl: SHA-256 \w+ differs from .*MANIFEST\.json"):
        build_release(core_dir, None, tmp_path / "release", cards=cards, invariance_dir=suite_dir)
    assert not (tmp_path / "release").exists()


@pytest.mark.parametrize(("changes", "message"), [
    ({"seed": 7}, rf"MANIFEST\.json: suite version '{re.escape(SUITE_VERSION)}' with seed 7; the release carries the "
                  "released suite"),
    ({"version": "0.9"}, r"MANIFEST\.json: suite version '0\.9' with seed 20261030"),
])
def test_build_refuses_a_suite_of_another_seed_or_version(tmp_path: Path, core_dir: Path, suite_dir: Path, cards,
                                                          changes: dict, message: str) -> None:
    _rewrite_manifest(suite_dir, **changes)
    with pytest.raises(DecisionPivotError, match=message):
        build_release(core_dir, None, tmp_path / "release", cards=cards, invariance_dir=suite_dir)


def test_build_refuses_a_family_drawn_with_another_seed(tmp_path: Path, core_dir: Path, suite_dir: Path,
                                                        cards) -> None:
    manifest = json.loads((suite_dir / "MANIFEST.json").read_text(encoding="utf-8"))
    manifest["families"]["alpha_check"]["seed"] = 8
    _rewrite_manifest(suite_dir, families=manifest["families"])
    with pytest.raises(DecisionPivotError, match=r"family 'alpha_check' drawn with seed 8"):
        build_release(core_dir, None, tmp_path / "release", cards=cards, invariance_dir=suite_dir)


def test_build_refuses_a_suite_drawn_from_another_core(tmp_path: Path, core_dir: Path, cards) -> None:
    other_core = write_core(tmp_path / "other-core", {"alpha_check": ("A", 10), "beta_check": ("D", 9)})
    suite = write_suite(tmp_path / "other-suite", other_core)
    with pytest.raises(DecisionPivotError, match=r"drawn from a core whose MANIFEST\.json has SHA-256 \w+, not the "
                                                 r"released core"):
        build_release(core_dir, None, tmp_path / "release", cards=cards, invariance_dir=suite)


def test_build_refuses_a_suite_that_is_not_the_packages_released_one(tmp_path: Path, core_dir: Path,
                                                                     suite_dir: Path, cards, monkeypatch) -> None:
    """Drawn from the released core with the released seed and version, the files must be the released suite's."""
    import decisionpivot.item_hashes as item_hashes

    shipped = json.loads((suite_dir / "MANIFEST.json").read_text(encoding="utf-8"))
    shipped["families"]["beta_check"]["sha256"] = "0" * 64
    released = tmp_path / "released"
    released.mkdir()
    (released / f"invariance-{SUITE_VERSION}.MANIFEST.json").write_text(json.dumps(shipped), encoding="utf-8")
    monkeypatch.setattr(item_hashes, "RELEASED", released)
    with pytest.raises(DecisionPivotError, match=r"beta_check\.jsonl: SHA-256 \w+ differs from the package's "
                                                 rf"released suite {re.escape(SUITE_VERSION)} \(0{{64}}\)"):
        build_release(core_dir, None, tmp_path / "release", cards=cards, invariance_dir=suite_dir)
    shipped["families"]["gamma_check"] = shipped["families"].pop("beta_check")  # a family drawn with --families
    (released / f"invariance-{SUITE_VERSION}.MANIFEST.json").write_text(json.dumps(shipped), encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=rf"not the released suite {re.escape(SUITE_VERSION)}'s families "
                                                 r"\(missing: gamma_check; "
                                                 r"not released: beta_check\)"):
        build_release(core_dir, None, tmp_path / "release", cards=cards, invariance_dir=suite_dir)


def test_download_verifies_the_suite_files(built, hub: FakeHub, hf_env: Path, tmp_path: Path, monkeypatch) -> None:
    _publish(hub, built, monkeypatch)
    original = (built.folder / "invariance/alpha_check.jsonl").read_bytes()
    forged = original.replace(b'"answer": "no"', b'"answer": "yes"', 1)
    assert forged != original
    hub.tamper(REPO, "invariance/alpha_check.jsonl", forged)
    monkeypatch.setenv("HF_TOKEN", OWNER)
    with pytest.raises(DecisionPivotError) as caught:
        download_release(REPO, tmp_path / "out", endpoint=hub.url, cache_dir=hf_env, expected=built.manifest)
    message = str(caught.value)
    assert "invariance/alpha_check.jsonl" in message and "Nothing was written" in message
    assert not (tmp_path / "out").exists()


def test_shipped_expected_manifest_covers_the_released_suite() -> None:
    """The package verifies downloads of the suite too: its files are listed with the hashes of the suite the
    expected (published) release carries - suite 1.0 in release 1.2, whose manifest the package keeps for that though
    it frames 1.1 now (docs/invariance.md, "Suite 1.0 is retired")."""
    from decisionpivot.item_hashes import released_suite
    from decisionpivot.release.manifest import expected_manifest

    manifest = expected_manifest()
    assert manifest is not None
    suite = released_suite(manifest["invariance"]["version"])
    assert suite is not None
    for name, entry in suite["families"].items():
        assert manifest["files"][f"invariance/{name}.jsonl"]["sha256"] == entry["sha256"], name
        assert manifest["invariance"]["families"][name]["sha256"] == entry["sha256"], name
    assert (suite["core"]["manifest_sha256"] == manifest["files"]["core/MANIFEST.json"]["sha256"])
