"""What the verbs tell a user after a quick try: the hint of --partial, the pipeline's reports kept, help that
says what happens (issue #33's corrections)."""

from __future__ import annotations

from pathlib import Path

import pytest

import decisionpivot
from decisionpivot.cli import main
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from tests.evaluate.conftest import items_dir  # noqa: F401 (the fixture: one small items folder per session)


def test_a_plain_score_of_a_limit_try_points_to_partial(tmp_path: Path, items_dir: Path,  # noqa: F811
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    evaluate_system(get_system("heuristic.fact_answerable.names_in_table"), items_dir, runs, limit=20,
                    progress=False)
    capsys.readouterr()
    main(["score", "--runs", str(runs), "--items", str(items_dir), "--reference", "", "--out", str(tmp_path / "r"),
          "--nofigures", "--resamples", "20"])
    err = capsys.readouterr().err
    assert "1 task(s) left out for answering too few items" in err and "dp score --partial" in err, err
    main(["score", "--runs", str(runs), "--items", str(items_dir), "--reference", "", "--out", str(tmp_path / "r"),
          "--nofigures", "--resamples", "20", "--partial"])
    assert "dp score --partial" not in capsys.readouterr().err  # said only when it was not asked for


# The pipeline's reports kept from a plain `dp score`, and one's own replaced: tests/_cli/test_pipeline_outputs.py


def test_evaluate_help_says_what_a_limit_run_exits_with(capsys: pytest.CaptureFixture[str]) -> None:
    main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "except with --limit or --shard (a part on purpose: exits 0" in text


def test_systems_says_where_the_kinds_are(capsys: pytest.CaptureFixture[str]) -> None:
    main(["systems"])
    captured = capsys.readouterr()
    assert "uniform" in captured.out and "dp systems --kinds" in captured.err
    main(["systems", "--help"])
    assert "--kinds" in " ".join(capsys.readouterr().out.split())


SOURCE = Path(decisionpivot.__file__).resolve().parent


def test_the_verb_groups_never_import_the_command_that_assembles_them() -> None:
    """cli.py imports every group of _cli/; _cli/shell.py imported cli.py back (a circle)."""
    import ast

    for path in sorted((SOURCE / "_cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            assert "decisionpivot.cli" not in names, f"{path.name}:{node.lineno} imports decisionpivot.cli"


def test_one_did_you_mean_serves_every_message(capsys: pytest.CaptureFixture[str]) -> None:
    from decisionpivot.errors import did_you_mean

    assert did_you_mean("scroe", ["score", "show", "gate"]) == " (did you mean score?)"
    assert did_you_mean("uniform2", ["uniform", "uniform1", "x"], most=2) == " (did you mean uniform or uniform1?)"
    assert did_you_mean("zzz", ["score"]) == ""
    written = [p.relative_to(SOURCE).as_posix() for p in SOURCE.rglob("*.py")
               if "did you mean" in p.read_text(encoding="utf-8")]
    assert written == ["errors.py"], written
    with pytest.raises(SystemExit):
        main(["scroe"])
    assert "(did you mean score?)" in capsys.readouterr().err


@pytest.mark.parametrize("yes_no", ["noul", "choice"])
@pytest.mark.parametrize("keys", [[("yes", "no")], [("no", "yes"), ("yes", "no")], [("yes", "no"), ("a", "b")]])
def test_evaluate_and_score_apply_one_rule_for_items_asked_without_order(yes_no: str,
                                                                         keys: list[tuple[str, str]]) -> None:
    """`dp evaluate` skips permutations of what `dp score` leaves out of the option-order figures: one rule."""
    from types import SimpleNamespace

    from decisionpivot.evaluate.questions import without_order
    from decisionpivot.evaluate.run import asked_without_order
    from decisionpivot.items import Item, Option
    from decisionpivot.score.robustness import asks_without_order

    items = [Item(f"f:{i:05d}", "f", "A", "1", None, None, None, None, "s", "Q?", tuple(Option(k, k) for k in ks),
                  ks[0]) for i, ks in enumerate(keys)]
    expected = yes_no == "noul" and all(sorted(ks) == ["no", "yes"] for ks in keys)
    assert without_order(yes_no, [i.option_keys for i in items]) is expected
    assert asked_without_order(SimpleNamespace(settings={"yes_no": yes_no}), items) is expected  # type: ignore[arg-type]
    answers = SimpleNamespace(meta={"readout": f"systemone/{yes_no}"})
    layout = SimpleNamespace(option_keys=tuple(i.option_keys for i in items))
    assert asks_without_order(layout, answers) is expected  # type: ignore[arg-type]
