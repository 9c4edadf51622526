"""Write only what is allowed (issue 37 case 3): of a configuration, an allow-list in clear, the rest hashed.

Redaction by recognised names let every name it did not know through: ``--db=postgres://u:PASSWORD@h/db``,
``-k SECRET``, ``--bearer SECRET``, ``--passphrase SECRET``, ``DB_URL``, ``MY_PASSPHRASE``, ``SIGNING`` and a
``pass=`` query parameter of ``base_url`` reached the meta files in clear. Each is a case here; then Hypothesis
plants generated secrets in generated configurations, runs ``dp evaluate`` and ``dp score`` on a few items and
reads every byte they wrote.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from decisionpivot.cli import main
from decisionpivot.evaluate.kinds import CLEAR_SETTINGS
from decisionpivot.evaluate.systems import get_system
from decisionpivot.redact import hashed, written_url
from tests.evaluate.conftest import FAMILY
from tests.evaluate.fake_openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
SECRET = "Pw7x9Qk2Lm"
SERVE = ["{python}", "-m", "tests.evaluate.fake_openai_server", "{port}"]

LEAKS = {
    "a URL with a password in an argument": {"serve": [*SERVE, f"--db=postgres://u:{SECRET}@h/db"]},
    "the value after -k": {"serve": [*SERVE, "-k", SECRET]},
    "the value after --bearer": {"serve": [*SERVE, "--bearer", SECRET]},
    "the value after --passphrase": {"serve": [*SERVE, "--passphrase", SECRET]},
    "DB_URL": {"serve": SERVE, "serve_env": {"DB_URL": f"postgres://u:{SECRET}@h/db"}},
    "MY_PASSPHRASE": {"serve": SERVE, "serve_env": {"MY_PASSPHRASE": SECRET}},
    "SIGNING": {"serve": SERVE, "serve_env": {"SIGNING": SECRET}},
    "a pass= query parameter of base_url": {"base_url": f"http://127.0.0.1:9/v1?pass={SECRET}"},
    "a user name and password in base_url": {"base_url": f"http://{SECRET}:{SECRET}@127.0.0.1:9/v1"},
    "a header value": {"base_url": "http://127.0.0.1:9/v1", "headers": {"X-Sig": SECRET}},
    "an extra_body value": {"base_url": "http://127.0.0.1:9/v1", "extra_body": {"metadata": {"user": SECRET}}},
}


def declared(tmp_path: Path, settings_: dict[str, Any], name: str = "s") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(json.dumps({"systems": {name: {"kind": "chat", "model": "fake", **settings_}}}))
    return path


@pytest.mark.parametrize("settings_", list(LEAKS.values()), ids=list(LEAKS))
def test_no_leak_of_the_issue_reaches_the_written_config(tmp_path: Path, settings_: dict[str, Any]) -> None:
    system = get_system("s", declared(tmp_path, settings_))
    written = json.dumps([system.public(), system.identity(), system.fingerprint()])
    assert SECRET not in written, written
    changed = json.loads(json.dumps(settings_).replace(SECRET, SECRET + "x"))
    if any(system.spec.settings[key].identity for key in settings_):  # a changed value changes the fingerprint
        assert get_system("t", declared(tmp_path, changed, "t")).fingerprint() != system.fingerprint()


def test_what_is_written_in_clear_is_the_allow_list() -> None:
    system = get_system("sparrow-nano-general-v1.1")
    public = system.public()
    assert public["model"] == "sparrow-nano-general-v1.1" and public["concurrency"] == 2 and public["path"]
    assert public["serve"][:2] == ["{python}", "-m"] and public["serve"][4] == "--model"  # option names in clear
    assert public["serve"][2] == hashed("decisionpivot.evaluate.keep_alive", "serve")  # every value hashed
    assert public["serve_env"]["OPENBLAS_CORETYPE"] == hashed("Haswell", "serve_env.OPENBLAS_CORETYPE")
    assert {"model", "path", "tokenizer"} <= CLEAR_SETTINGS
    assert written_url("https://u:pw@host:8443/v1/x?api-version=7#frag") == \
        "https://[REDACTED]@host:8443/v1/x?api-version=[REDACTED]"


def test_every_setting_of_every_kind_is_written_by_a_deliberate_rule() -> None:
    """A setting a kind adds is hashed until it is closed (a number, a choice) or listed in CLEAR_SETTINGS: these are
    the settings written as hashes today, each a value that may be a secret or free text."""
    from decisionpivot.evaluate.kinds import WRITTEN_FORMS, kinds

    hashed_settings = {key for spec in kinds().values() for key, setting in spec.settings.items()
                       if not getattr(setting.check, "closed", False) and key not in CLEAR_SETTINGS}
    assert hashed_settings == {"api_key_env", "basic_user", "headers", "extra_body", "options", *WRITTEN_FORMS}


def test_a_hash_is_salted_by_the_name_and_the_same_everywhere() -> None:
    """scrypt of the value, salted by the setting's name: no machine, run or process changes it (a resume, shards
    from several machines and the pipeline's bytes rely on it)."""
    assert hashed(SECRET, "serve_env.A") != hashed(SECRET, "serve_env.B")
    assert hashed(SECRET, "serve") == "scrypt:" + hashlib.scrypt(
        SECRET.encode(), salt=b"decisionpivot/serve", n=2**14, r=8, p=1, dklen=8, maxmem=64 * 1024 * 1024).hex()


def test_an_identity_recorded_the_old_way_is_recognised(tmp_path: Path) -> None:
    """Meta files written before the allow-list held the identity in clear (secret-named values as sha256:...):
    the same settings resume, and the meta is rewritten without the values."""
    from decisionpivot.evaluate.answers import _recorded_before

    system = get_system("s", declared(tmp_path, {"serve": [*SERVE, "--api-key", SECRET, "--threads", "2"],
                                                 "serve_env": {"HF_TOKEN": SECRET, "OMP_NUM_THREADS": "1"}}))
    legacy = "sha256:" + hashlib.sha256(SECRET.encode()).hexdigest()[:16]
    old = {"kind": "chat", **{k: v for k, v in system.settings.items() if system.spec.settings[k].identity}}
    old["serve"] = [*SERVE, "--api-key", legacy, "--threads", "2"]
    old["serve_env"] = {"HF_TOKEN": legacy, "OMP_NUM_THREADS": "1"}
    assert _recorded_before(old, {"kind": "chat", **{k: v for k, v in system.settings.items()
                                                    if system.spec.settings[k].identity}})
    old["serve_env"]["OMP_NUM_THREADS"] = "2"
    assert not _recorded_before(old, {"kind": "chat", **{k: v for k, v in system.settings.items()
                                                        if system.spec.settings[k].identity}})


# ---------------------------------------------------------------------------------- planted in generated configs

secrets = st.from_regex(r"[A-Za-z0-9]{9}", fullmatch=True).map(lambda text: "Q" + text)
"""A planted value: Q and 9 letters or digits (no hex digest, item or report text holds a capital Q run)."""
names = st.from_regex(r"[a-z][a-z0-9]{1,8}", fullmatch=True)


@st.composite
def configurations(draw: Any) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """(a served system's settings, a base_url system's settings, the values planted in them)."""
    planted = draw(st.lists(secrets, min_size=6, max_size=6, unique=True))
    forms = draw(st.lists(st.sampled_from(["--NAME VALUE", "--NAME=VALUE", "-k VALUE", "VALUE",
                                           "--NAME=postgres://u:VALUE@h/db"]), min_size=3, max_size=3))
    words: list[str] = []
    for form, value, name in zip(forms, planted[:3], draw(st.lists(names, min_size=3, max_size=3)), strict=True):
        words += form.replace("NAME", name).replace("VALUE", value).split(" ")
    env_names = draw(st.lists(st.from_regex(r"[A-Z][A-Z_]{2,8}", fullmatch=True), min_size=2, max_size=2,
                              unique=True))
    served = {"serve": [*SERVE, *words], "serve_env": {f"DP_{name}": value for name, value in
                                                          zip(env_names, planted[3:5], strict=True)}}
    query = draw(names)
    remote = {"headers": {"X-" + draw(names).title(): planted[5]}, "extra_body": {"user": planted[0]},
              "api_key_env": None, "query": (query, planted[1]), "userinfo": planted[2]}
    return served, remote, planted


@pytest.fixture(scope="module")
def remote_server() -> Any:
    with FakeOpenAI() as server:
        yield server


@settings(max_examples=4, deadline=None, derandomize=True, phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(configuration=configurations())
def test_no_planted_value_reaches_a_byte_dp_evaluate_and_dp_score_write(
        tmp_path_factory: pytest.TempPathFactory, items_dir: Path, remote_server: Any,
        monkeypatch: pytest.MonkeyPatch, configuration: tuple[dict[str, Any], dict[str, Any], list[str]]) -> None:
    served, remote, planted = configuration
    folder = tmp_path_factory.mktemp("planted")
    port = urlsplit(remote_server.base_url).port
    query, userinfo = remote.pop("query"), remote.pop("userinfo")
    remote.pop("api_key_env")
    base = f"http://{userinfo}:{userinfo}@127.0.0.1:{port}/v1?{query[0]}={query[1]}"
    systems = folder / "systems.yaml"
    systems.write_text(json.dumps({"systems": {
        "served": {"kind": "chat", "model": "fake", "serve_ready_s": 60, "concurrency": 2, **served},
        "remote": {"kind": "chat", "model": "fake", "base_url": base, "concurrency": 2, **remote}}}))
    monkeypatch.chdir(ROOT)  # the served module is found as tests.evaluate... from the repository
    runs, reports = folder / "runs", folder / "reports"
    for name in ("served", "remote"):
        main(["evaluate", "--system", name, "--config", str(systems), "--items", str(items_dir), "--runs", str(runs),
              "--limit", "6"])
    main(["score", "--runs", str(runs), "--items", str(items_dir), "--reference", "", "--out", str(reports),
          "--resamples", "20", "--nofigures", "--partial"])
    written = [path for root in (runs, reports) for path in root.rglob("*") if path.is_file()]
    assert any(path.name == f"{FAMILY}.meta.json" for path in written) and any(p.parent == reports for p in written)
    for path in written:
        data = path.read_bytes()
        for value in planted:
            assert value.encode() not in data, (value, path)
