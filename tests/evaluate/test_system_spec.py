"""A system on one command line: ``dp evaluate --system KIND:MODEL[@URL][?KEY=VALUE&...]`` without a YAML file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from decisionpivot.cli import main
from decisionpivot.evaluate.systems import SystemConfigError, get_system, system_from_spec

PLUGIN = "python:decisionpivot.evaluate.example_plugin:decide"


def test_spec_fields_land_where_a_yaml_declaration_puts_them(tmp_path: Path) -> None:
    spec = get_system("chat:gpt-4o-mini@https://api.openai.com/v1?key_env=OPENAI_API_KEY&temperature=0.5")
    config = tmp_path / "systems.yaml"
    config.write_text("systems:\n  chat.gpt-4o-mini: {kind: chat, model: gpt-4o-mini, "
                      "base_url: 'https://api.openai.com/v1', api_key_env: OPENAI_API_KEY, temperature: 0.5}\n")
    declared = get_system("chat.gpt-4o-mini", config)
    assert spec.public() == declared.public() and spec.fingerprint() == declared.fingerprint()
    inspect_style = get_system("hf/openai-community/gpt2?batch_size=4&name=gpt2")
    assert (inspect_style.name, inspect_style.settings["model"], inspect_style.settings["batch_size"]) == \
        ("gpt2", "openai-community/gpt2", 4)
    served = system_from_spec("logprobs:qwen@http://user:pw@127.0.0.1:8000/v1?tokenizer=/models/qwen&readout=chat")
    assert served.settings["base_url"] == "http://user:pw@127.0.0.1:8000/v1" and served.settings["model"] == "qwen"
    assert "pw" not in json.dumps(served.public())


@pytest.mark.parametrize(("spec", "message"), [
    ("nokind:x", "expected KIND:MODEL"),
    ("chat:m?bogus=1", "unknown key 'bogus'"),
    ("chat:m?temprature=1", "unknown key 'temprature' (did you mean temperature?)"),
    ("chat:m@http://h/v1?temperature=1&temperature=2", "'temperature' given twice"),
    ("chat:m", "needs 'base_url'"),
    ("chat:m@http://h/v1?api_key=sk-123", "put the key in an environment variable"),
    ("chat:m@http://h/v1?temperature", "'temperature' is not KEY=VALUE"),
])
def test_a_wrong_spec_is_one_line_naming_it(spec: str, message: str) -> None:
    with pytest.raises(SystemConfigError, match=r"^--system") as caught:
        get_system(spec)
    assert message in str(caught.value)


def test_evaluate_runs_and_resumes_a_spec_and_families_is_tasks(tmp_path: Path, items_dir: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    args = ["evaluate", "--system", PLUGIN + "?name=plug", "--items", str(items_dir), "--runs", str(runs),
            "--limit", "3"]
    main([*args, "--families", "fact_answerable"])
    first = capsys.readouterr().out
    assert "plug: 3 of 3 items answered" in first
    main([*args, "--tasks", "fact_answerable"])
    resumed = capsys.readouterr().out.splitlines()
    assert any(line.split()[:3] == ["fact_answerable", "3", "3"] for line in resumed), resumed
    meta = json.loads((runs / "plug" / "fact_answerable.meta.json").read_text())
    assert meta["system"]["kind"] == "python"
    assert meta["system"]["callable"] == "decisionpivot.evaluate.example_plugin:decide"
    with pytest.raises(SystemExit):
        main([*args, "--tasks", "fact_answerable", "--families", "fact_answerable"])
