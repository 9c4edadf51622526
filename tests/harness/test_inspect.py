"""inspect_ai runs DecisionPivot and its logs come back as answer files equal to `dp evaluate`'s.

End to end with the real packages: the ``inspect`` command finds ``decisionpivot/core`` through the
package's entry point and asks an OpenAI-compatible server over HTTP (inspect's ``openai-api``
provider); ``dp evaluate`` asks the same server with a ``chat`` system. The server is the project's
scripted one (:mod:`tests.evaluate.fake_openai_server`): a real model's replies cannot be scripted,
and only scripted replies can cover every way a reply is read. Then inspect's own mock model
(scripted ``ModelOutput`` objects with reasoning parts and token-limit stops) in process, and the
real ``transformers serve`` with a tiny random Llama. The imported records equal the native ones
field by field (latency aside) and ``dp score`` gives identical figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalError, read_eval_log, write_eval_log
from inspect_ai.model import get_model
from inspect_ai.solver import generate, system_message

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.harness.inspect_import import import_inspect_log
from decisionpivot.harness.inspect_tasks import _families, decisionpivot_task
from tests.evaluate.fake_openai_server import FakeOpenAI
from tests.evaluate.test_systemone_serve import served, tiny_decider  # noqa: F401 - the real server's fixtures
from tests.harness.conftest import FAMILIES
from tests.harness.scripted_replies import KINDS, chat_completion, model_output, scripted_reply

ANSWER_FIELDS = ("id", "p", "error", "closed", "tokens", "input_tokens")
"""What a record says about the system (``latency_s`` / ``queued_s`` are the transport's)."""


def records(runs: Path, system: str, task: str) -> dict[str, dict[str, Any]]:
    path = runs / system / f"{task}.jsonl"
    return {r["id"]: {k: r[k] for k in ANSWER_FIELDS if k in r} for r in map(json.loads, path.read_text().splitlines())}


def scripted_server() -> FakeOpenAI:
    return FakeOpenAI(respond=lambda payload: chat_completion(scripted_reply(payload["messages"][-1]["content"])))


def chat_system(tmp_path: Path, url: str, name: str = "native", **extra: Any) -> Path:
    path = tmp_path / "systems.yaml"
    path.write_text(json.dumps({"systems": {name: {"kind": "chat", "base_url": url, "model": "scripted",
                                                   "concurrency": 16, **extra}}}))
    return path


def scores_of(out: Path, system: str) -> list[tuple[Any, ...]]:
    """Every figure of one system in scores.json, without its name."""
    rows = json.loads((out / "scores.json").read_text())
    return sorted(tuple(sorted((k, json.dumps(v)) for k, v in r.items() if k != "system"))
                  for r in rows if r["system"] == system)


def inspect_command(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    cli = Path(sys.executable).with_name("inspect")
    return subprocess.run([str(cli), "eval", *args, "--display", "none"], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def only_log(folder: Path) -> Path:
    [log] = sorted(folder.glob("*.eval"))
    return log


def test_inspect_eval_imports_to_dp_evaluates_answers_and_scores_the_same(
        tmp_path: Path, release_items: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A whole family through the ``inspect`` command (one: 600 samples take inspect 40-50 s on this machine)."""
    runs, logs = tmp_path / "runs", tmp_path / "logs"
    with scripted_server() as server:
        env = {**os.environ, "SCRIPTED_BASE_URL": server.base_url, "SCRIPTED_API_KEY": "none"}
        done = inspect_command("decisionpivot/policy_case", "-T", f"items={release_items}", "--model",
                               "openai-api/scripted/scripted", "--max-connections", "32", "--log-dir", str(logs),
                               env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        sent = list(server.requests)
        main(["evaluate", "--system", "native", "--config", str(chat_system(tmp_path, server.base_url)),
              "--items", str(release_items), "--runs", str(runs), "--tasks", "policy_case"])
    assert {(r["temperature"], r.get("max_tokens") or r.get("max_completion_tokens")) for r in sent} == {(0.0, 2048)}
    main(["import", "inspect", str(only_log(logs)), "--system", "inspected", "--items", str(release_items),
          "--runs", str(runs)])
    native, imported = records(runs, "native", "policy_case"), records(runs, "inspected", "policy_case")
    assert len(imported) == 600 and imported == native
    assert sum("p" in r for r in imported.values()) > 300 and sum("error" in r for r in imported.values()) > 100
    meta = json.loads((runs / "inspected" / "policy_case.meta.json").read_text())
    assert meta["kind"] == "inspect" and meta["readout"] == "chat/verbalised"
    assert meta["items_check"] == f"released core {BENCHMARK_VERSION}" and meta["answers"] + meta["errors"] == 600
    assert meta["harness"]["name"] == "inspect_ai" and meta["harness"]["version"]
    [entry] = meta["harness"]["logs"]
    assert entry["task"] == "decisionpivot/policy_case" and entry["status"] == "success" and entry["eval_id"]
    assert meta["system"]["generate_config"] == {"max_tokens": 2048, "temperature": 0.0}
    out = tmp_path / "reports"
    main(["score", "--runs", str(runs), "--items", str(release_items), "--reference", "", "--out", str(out),
          "--resamples", "50", "--nofigures"])
    assert scores_of(out, "inspected") == scores_of(out, "native") != []
    assert "inspected" in (out / "leaderboard.md").read_text()


def test_every_scripted_reply_kind_is_met(release_items: Path) -> None:
    """The equality above covers each way a reply can be read (the script is a function of the item)."""
    from decisionpivot.evaluate.prompt import user_message
    from decisionpivot.items import read_items

    met = {scripted_reply(user_message(item)).kind for task in FAMILIES
           for item in read_items(release_items / f"{task}.jsonl")}
    assert met == set(KINDS)


def mock_model() -> Any:
    return get_model("mockllm/model", custom_outputs=lambda messages, *_: model_output(
        scripted_reply(messages[-1].text)))


MOCKED = [f"{family}:{index:05d}" for family in FAMILIES for index in range(60)]
"""The samples of the mock model's run: the first 60 items of each family (every reply kind is among them)."""


@pytest.fixture(scope="module")
def mock_log(tmp_path_factory: pytest.TempPathFactory, release_items: Path) -> Path:
    """inspect's own mock model over both families (the ``core`` task) in process."""
    logs = tmp_path_factory.mktemp("mock-logs")
    [log] = inspect_eval(decisionpivot_task(FAMILIES, None, str(release_items)), model=mock_model(),
                         sample_id=MOCKED, log_dir=str(logs), display="none")
    assert log.status == "success"
    return Path(log.location)


def test_mock_model_replies_are_read_as_the_chat_kind_reads_them(tmp_path: Path, release_items: Path,
                                                                 mock_log: Path) -> None:
    runs = tmp_path / "runs"
    with scripted_server() as server:
        main(["evaluate", "--system", "native", "--config", str(chat_system(tmp_path, server.base_url)),
              "--items", str(release_items), "--runs", str(runs), "--limit", "60"])
    written = import_inspect_log(mock_log, "mocked", runs, release_items)
    assert [(w.task, w.in_log, w.answers + w.errors) for w in written] == [(f, 60, 60) for f in FAMILIES]
    log = read_eval_log(str(mock_log))
    reasons = set()
    for task in FAMILIES:
        native, imported = records(runs, "native", task), records(runs, "mocked", task)
        assert imported == native, task
        reasons |= {r["error"] for r in imported.values() if "error" in r}
        for sample in log.samples:  # the task's scorer recorded what the import reads
            if sample.id in imported:
                score = sample.scores["option_probabilities"]
                assert score.metadata["p"] == imported[sample.id].get("p")
                assert score.metadata["error"] == imported[sample.id].get("error")
    assert {"the reply holds reasoning only, no answer", "reasoning block was never closed",
            "reply object: probabilities sum to 0, outside 1 +- 0.02"} <= reasons
    assert any(reason.startswith("reply cut off at max_tokens") for reason in reasons)
    assert all(s.metadata["group"] and s.metadata["level"] in (1, 2, 3) for s in log.samples)
    assert {"accuracy", "pair_accuracy"} <= set(log.results.scores[0].metrics)


def sample_of(log: Any, sample_id: str) -> Any:
    return next(s for s in log.samples if s.id == sample_id)


def test_a_log_of_other_items_is_refused_whole(tmp_path: Path, release_items: Path, mock_log: Path) -> None:
    log = read_eval_log(str(mock_log))
    sample_of(log, "policy_case:00007").metadata["item_sha256"] = "0" * 64
    edited = tmp_path / "edited.eval"
    write_eval_log(log, str(edited))
    with pytest.raises(DecisionPivotError, match=r"sample 'policy_case:00007'.*the log answered other items"):
        import_inspect_log(edited, "edited", tmp_path / "runs", release_items)
    assert not (tmp_path / "runs").exists(), "nothing written"
    log = read_eval_log(str(mock_log))
    user = sample_of(log, "policy_case:00003").messages[1]
    user.content = user.text.replace("STATE", "CASE", 1)
    write_eval_log(log, str(edited))
    with pytest.raises(DecisionPivotError, match=r"not the Appendix B request of policy_case:00003"):
        import_inspect_log(edited, "edited", tmp_path / "runs", release_items)


def test_another_solver_or_system_message_is_refused(tmp_path: Path, release_items: Path) -> None:
    task = decisionpivot_task(("fact_answerable",), None, str(release_items))
    task.solver = [system_message("Answer yes to everything."), generate()]  # type: ignore[assignment]
    [log] = inspect_eval(task, model=mock_model(), limit=2, log_dir=str(tmp_path / "logs"), display="none")
    with pytest.raises(DecisionPivotError, match="the messages sent are not the Appendix B request"):
        import_inspect_log(Path(log.location), "other", tmp_path / "runs", release_items)
    task = decisionpivot_task(("fact_answerable",), None, str(release_items))
    [log] = inspect_eval(task, model=mock_model(), limit=2, system_message="Be brief.",  # inspect's --system-message
                         log_dir=str(tmp_path / "logs2"), display="none")
    with pytest.raises(DecisionPivotError, match=r"another system message \('Be brief\.'"):
        import_inspect_log(Path(log.location), "other", tmp_path / "runs", release_items)
    assert not (tmp_path / "runs").exists()


def test_level_limit_and_sampling_options_reach_the_log_and_the_fingerprint(tmp_path: Path,
                                                                            release_items: Path) -> None:
    runs = tmp_path / "runs"
    [log] = inspect_eval(decisionpivot_task(("policy_case",), 2, str(release_items)), model=mock_model(),
                         limit=30, temperature=0.7, seed=5, log_dir=str(tmp_path / "logs"), display="none")
    assert {s.metadata["level"] for s in log.samples} == {2}
    [written] = import_inspect_log(Path(log.location), "warm", runs, release_items)
    meta = json.loads(written.path.with_name("policy_case.meta.json").read_text())
    assert meta["system"]["generate_config"] == {"max_tokens": 2048, "temperature": 0.7, "seed": 5}
    cold = decisionpivot_task(("policy_case",), 2, str(release_items))
    [other] = inspect_eval(cold, model=mock_model(), limit=30, log_dir=str(tmp_path / "logs2"), display="none")
    with pytest.raises(DecisionPivotError, match=r"another config .*temperature"):
        import_inspect_log(Path(other.location), "warm", runs, release_items)  # would mix two configurations
    import_inspect_log(Path(other.location), "warm", runs, release_items, restart=True)


def test_unfinished_samples_are_transient_and_a_retried_log_fills_them(tmp_path: Path, release_items: Path) -> None:
    runs = tmp_path / "runs"
    failing = {"fact_answerable:00001", "fact_answerable:00004"}
    task = decisionpivot_task(("fact_answerable",), None, str(release_items))
    [log] = inspect_eval(task, model=mock_model(), limit=6, log_dir=str(tmp_path / "logs"), display="none")
    broken = read_eval_log(log.location)
    for sample in broken.samples:  # what inspect records when a sample could not finish (retries spent)
        if sample.id in failing:
            sample.error = EvalError(message="RateLimitError: retries exhausted", traceback="", traceback_ansi="")
    broken_path = tmp_path / "broken.eval"
    write_eval_log(broken, str(broken_path))
    [first] = import_inspect_log(broken_path, "flaky", runs, release_items)
    lines = [json.loads(line) for line in first.path.read_text().splitlines()]
    assert {r["id"] for r in lines if r.get("transient")} == failing and first.transient == len(failing)
    assert all("inspect could not finish the sample: RateLimitError" in r["error"] for r in lines if r.get("transient"))
    [second] = import_inspect_log(Path(log.location), "flaky", runs, release_items)  # the retried run
    assert second.already == 4 and second.answers + second.errors == 6
    meta = json.loads(second.path.with_name("fact_answerable.meta.json").read_text())
    assert len(meta["harness"]["logs"]) == 2, "both logs are named"
    assert not any(json.loads(line).get("transient") for line in second.path.read_text().splitlines())


def test_the_tasks_are_found_through_the_entry_point() -> None:
    done = subprocess.run([sys.executable, "-c", (
        "from inspect_ai._util.registry import registry_lookup\n"
        "import sys\n"
        "assert 'decisionpivot.harness.inspect_tasks' not in sys.modules\n"
        "for name in ('decisionpivot/core', 'decisionpivot/policy_case', 'decisionpivot/install_check'):\n"
        "    assert registry_lookup('task', name) is not None, name\n")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_bad_level_or_a_missing_log_is_a_clear_error(tmp_path: Path, release_items: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    for level in (5, True, "two"):  # inspect parses -T values as YAML: level=true arrives as True
        with pytest.raises(DecisionPivotError, match=r"-T level=.*: expected 1, 2 or 3"):
            decisionpivot_task(None, level, str(release_items))
    with pytest.raises(DecisionPivotError, match="unknown task 'nope'"):
        decisionpivot_task(_families("policy_case, nope"), None, str(release_items))
    assert _families(["a", "b"]) == ("a", "b") and _families("") is None
    with pytest.raises(SystemExit) as caught:
        main(["import", "inspect", str(tmp_path / "nope.eval"), "--system", "x", "--items", str(release_items)])
    assert caught.value.code == 2 and "no such inspect log file" in capsys.readouterr().err
    (tmp_path / "junk.eval").write_text("not a log")
    with pytest.raises(SystemExit):
        main(["import", "inspect", str(tmp_path / "junk.eval"), "--system", "x", "--items", str(release_items)])
    assert "not a readable inspect log" in capsys.readouterr().err


def test_a_real_server_gets_the_same_request_from_inspect_and_dp(tmp_path: Path, served: str,  # noqa: F811
                                                                 tiny_decider: Path,  # noqa: F811
                                                                 release_items: Path) -> None:
    """``transformers serve`` with a tiny random Llama: its greedy replies are junk, but the same junk both ways."""
    runs = tmp_path / "runs"
    config = chat_system(tmp_path, served + "/v1", name="served", max_tokens=8)
    config.write_text(config.read_text().replace('"scripted"', json.dumps(str(tiny_decider))))
    with pytest.raises(SystemExit) as ended:  # junk replies only: every record an error, which dp evaluate says
        main(["evaluate", "--system", "served", "--config", str(config), "--items", str(release_items), "--runs",
              str(runs), "--tasks", "policy_case", "--limit", "4"])
    assert ended.value.code == 1
    env = {**os.environ, "SERVED_BASE_URL": served + "/v1", "SERVED_API_KEY": "none"}
    done = inspect_command("decisionpivot/core", "-T", f"items={release_items}", "-T", "families=policy_case",
                           "--model", f"openai-api/served/{tiny_decider}", "--max-tokens", "8", "--limit", "4",
                           "--log-dir", str(tmp_path / "logs"), env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    log = only_log(tmp_path / "logs")
    import_inspect_log(log, "inspected", runs, release_items)
    assert records(runs, "inspected", "policy_case") == records(runs, "served", "policy_case")
    raw = {json.loads(r["raw"])["choices"][0]["message"]["content"] for r in
           map(json.loads, (runs / "served" / "policy_case.raw.jsonl").read_text().splitlines())}
    assert {s.output.completion for s in read_eval_log(str(log)).samples} == raw, "the very same replies"


def test_an_item_twice_in_epoch_one_is_refused(tmp_path: Path, release_items: Path, mock_log: Path) -> None:
    """Issue 29: a log holding an item's sample twice was imported last-wins."""
    log = read_eval_log(str(mock_log))
    twice = sample_of(log, "policy_case:00004").model_copy(deep=True)
    log.samples = [*(log.samples or []), twice]
    edited = tmp_path / "twice.json"  # the JSON log format holds the samples as a list
    write_eval_log(log, str(edited))
    with pytest.raises(DecisionPivotError, match=r"sample 'policy_case:00004' appears twice in epoch 1"):
        import_inspect_log(edited, "twice", tmp_path / "runs", release_items)
    assert not (tmp_path / "runs").exists()


def test_a_huge_member_in_a_small_log_is_refused_unread(tmp_path: Path, release_items: Path, mock_log: Path) -> None:
    """Issue 29: a 400 MB member in a 430 KB .eval held 0.93 GB. Here 300 MiB of zeros, a few hundred KiB packed."""
    import resource
    import shutil
    import zipfile

    from decisionpivot.harness.inspect_import import MAX_MEMBER_BYTES

    bomb = tmp_path / "bomb.eval"
    shutil.copyfile(mock_log, bomb)
    chunk = bytes(2**20)
    with zipfile.ZipFile(bomb, "a", compression=zipfile.ZIP_DEFLATED) as archive, \
            archive.open("samples/policy_case:00099_epoch_1.json", "w", force_zip64=True) as member:
        for _ in range(MAX_MEMBER_BYTES // len(chunk) + 44):
            member.write(chunk)
    assert bomb.stat().st_size < 2 * 2**20
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(DecisionPivotError, match=r"member 'samples/policy_case:00099_epoch_1.json' unpacks to 300 MiB"):
        import_inspect_log(bomb, "bomb", tmp_path / "runs", release_items)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 2**10, "KiB of peak memory"
    assert not (tmp_path / "runs").exists()
