"""Systems files: defaults, user files, validation, secrets never recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from decisionpivot.evaluate.systems import SystemConfigError, get_system, load_systems, validate_system_name


def test_builtins_and_heuristics_are_declared() -> None:
    systems = load_systems()
    assert systems["uniform"].kind == "baseline"
    assert "heuristic.fact_answerable.names_in_table" in systems
    assert systems["heuristic.fact_answerable.names_in_table"].families == ("fact_answerable",)


def test_two_line_chat_declaration(tmp_path: Path) -> None:
    config = tmp_path / "systems.yaml"
    config.write_text('systems:\n  mine: {kind: chat, base_url: "http://localhost:8000/v1", model: m}\n')
    system = get_system("mine", config)
    assert system.settings["concurrency"] == 16 and system.settings["temperature"] == 0.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("systems:\n  x: {kind: chat, model: m}\n", "needs 'base_url'"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, temprature: 1}\n",
         "unknown key 'temprature' \\(did you mean temperature\\?\\)"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, api_key: sk-123}\n", "name it with api_key_env"),
        ("systems:\n  x: {kind: robot}\n", "unknown kind 'robot'; known: baseline, chat"),
        ("systems:\n  x: {kind: chta, base_url: u, model: m}\n", "unknown kind 'chta' \\(did you mean chat\\?\\)"),
        ("systems:\n  x: {base_url: u, model: m}\n", "needs 'kind', one of baseline, chat"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, timeout_s: .inf}\n",
         "timeout_s: expected a number from 0 to 86,400, 0 excluded, got inf"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, timeout_s: 1e300}\n",
         "timeout_s: expected a number from 0 to 86,400"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, extra_body: {a: .nan}}\n", "extra_body: expected finite"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, redirects: folow}\n", "did you mean follow"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, api_key_env: sk-abc-123}\n",
         "api_key_env: expected the name of an environment variable"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, serve_env: {A B: x}}\n", "expected variable names"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m}\n  x: {kind: chat, base_url: u, model: n}\n",
         ":3: key 'systems.x' given twice \\(first on line 2\\)"),
        ("systems:\n  x:\n    kind: chat\n    base_url: u\n    model: m\n    model: n\n",
         ":6: key 'systems.x.model' given twice \\(first on line 5\\)"),
        ("systems:\n  x:\n    kind: chat\n    base_url: u\n    model: m\n    concurrency: 1e9\n",
         ":6: system 'x' \\(chat\\): concurrency: expected a whole number from 1 to 4,096"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, concurrency: 0}\n",
         "concurrency: expected a whole number from 1 to 4,096, got 0"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, timeout_s: abc}\n",
         "timeout_s: expected a number from 0 to 86,400, 0 excluded"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, extra_body: [1]}\n", "extra_body: expected a mapping"),
        ("systems:\n  x: {kind: hf, model: m, batch_size: 0}\n", "batch_size: expected a whole number from 1"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, temperature: hot}\n",
         "temperature: expected a number from 0 to 10"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, max_attempts: true}\n", "max_attempts: expected a whole"),
        ("systems:\n  x: {kind: chat, base_url: u, model: m, requests_per_minute: -5}\n",
         "requests_per_minute: expected a number from 0"),
        ("systems:\n  x: {kind: systemone, base_url: u, model: m, yes_no: maybe}\n", "yes_no: expected one of"),
        ("systems:\n  x: {kind: systemone, base_url: u, model: m, path: v1/x}\n", "path: expected a URL path"),
        ("systems:\n  x: {kind: systemone, base_url: u}\n", "needs 'model'"),
        ("systems:\n  x: {kind: decision, model: m, max_options: 0}\n", "max_options: expected a whole number"),
        ("systems:\n  x: {kind: baseline, baseline: heuristic}\n", "needs 'family' and 'heuristic'"),
        ("systems: [1, 2\n", "not valid YAML"),
        ("systems:\n  ../evil: {kind: baseline, baseline: uniform}\n", "invalid system name"),
    ],
)
def test_bad_declarations_are_explained(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "s.yaml"
    config.write_text(text)
    with pytest.raises(SystemConfigError, match=message) as err:
        load_systems(config)
    assert str(config) in str(err.value) or "invalid system name" in str(err.value)


@pytest.mark.parametrize("name", ["a/b", "..", "x..y", "", "a\\b", "/abs", "-flag" * 0 + "a b"])
def test_system_names_cannot_escape_the_runs_folder(name: str) -> None:
    with pytest.raises(SystemConfigError):
        validate_system_name(name)


def test_an_unknown_system_suggests_the_nearest_name() -> None:
    with pytest.raises(SystemConfigError, match=r"unknown system 'unifrom' \(did you mean uniform\?\).*dp systems"):
        get_system("unifrom")
    with pytest.raises(SystemConfigError, match=r"unknown system 'nope': not a built-in system") as caught:
        get_system("nope")
    assert "heuristic." not in str(caught.value), "no wall of 26 names on one line"


def test_an_unknown_system_names_the_config_it_looked_in(tmp_path: Path) -> None:
    config = tmp_path / "mine.yaml"
    config.write_text("systems:\n  mine: {kind: baseline, baseline: uniform}\n")
    expected = r"unknown system 'nope': neither built in nor declared in \S*mine\.yaml;"
    with pytest.raises(SystemConfigError, match=expected):
        get_system("nope", config)


def test_public_config_holds_the_variable_name_not_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-secret-value")
    config = tmp_path / "s.yaml"
    config.write_text("systems:\n  x: {kind: chat, base_url: u, model: m, api_key_env: MY_KEY}\n")
    assert "sk-secret-value" not in repr(get_system("x", config).public())


def test_the_commented_examples_of_default_systems_are_valid_declarations(tmp_path: Path) -> None:
    """Every example in default_systems.yaml, uncommented, loads: the documentation cannot drift from the keys."""
    from importlib import resources

    text = resources.files("decisionpivot.evaluate").joinpath("default_systems.yaml").read_text("utf-8")
    blocks, current = [], []
    for line in text.splitlines():
        if line.startswith("#   systems:"):
            current = ["systems:"]
            blocks.append(current)
        elif current and line.startswith("#     "):
            current.append(line[5:].split("  #")[0].rstrip())
        elif current and line.strip() == "#":
            current = []
    assert len(blocks) >= 3
    declared = set()
    for number, block in enumerate(blocks):
        path = tmp_path / f"example-{number}.yaml"
        path.write_text("\n".join(block) + "\n")
        declared |= {s.kind for s in load_systems(path).values() if s.source == str(path)}
    assert {"chat", "systemone", "openai_decisions", "sglang_decisions", "decision", "hf", "python"} <= declared


@pytest.mark.parametrize("name", ["123", "1.5", "yes", "~"])
def test_a_system_name_yaml_reads_as_no_string_is_one_error(tmp_path: Path, name: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(f"systems:\n  {name}:\n    kind: chat\n    base_url: http://x\n    model: m\n")
    with pytest.raises(SystemConfigError, match=r"by YAML, not as a name; write it in quotes"):
        load_systems(path)
    if name != "~":  # quoted, it is a name (and "~" is no valid one)
        path.write_text(f"systems:\n  '{name}':\n    kind: chat\n    base_url: http://x\n    model: m\n")
        assert name in load_systems(path)


def test_an_alias_bomb_is_refused_before_it_grows(tmp_path: Path) -> None:
    levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    levels += [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(levels) + "\nsystems:\n  bomb: {kind: chat, base_url: 'http://x', model: m, "
                    "extra_body: {x: *i}}\n")
    with pytest.raises(SystemConfigError, match="alias bomb"):
        load_systems(path)
