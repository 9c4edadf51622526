"""One page per core family: its systems with intervals, levels, and every system's risk-coverage curve."""

from __future__ import annotations

from decisionpivot.report.facts import ranked_systems
from decisionpivot.report.html import Cell, Table, esc, number, paragraph, section, system_link
from decisionpivot.report.inputs import ReportInputs
from decisionpivot.report.overview import score_cell
from decisionpivot.report.svg import Curve, IntervalRow, interval_chart, risk_coverage_chart
from decisionpivot.score import metrics
from decisionpivot.score.core import CHANCE_METRIC
from decisionpivot.score.results import CORE, UNIFORM_GUESS

FAMILY_COLUMNS = (
    ("pair_accuracy", "Pair acc."),
    ("item_accuracy", "Item acc."),
    ("pair_direction", "Pair dir."),
    ("coverage_at_5", "C(0.05)"),
    ("accuracy_at_90", "Acc@0.90"),
    ("share_at_90", "Share@0.90"),
    ("ece", "ECE"),
    ("brier", "Brier"),
    ("aurc", "AURC"),
)


def curve_of(inputs: ReportInputs, system: str, family: str) -> Curve:
    answers = inputs.answers[(system, family)]
    coverage, risk = metrics.risk_coverage_curve(answers.confidence, answers.correct)
    c05 = inputs.value(system, CORE, family, "coverage_at_5")
    return Curve(system, coverage, risk, None if c05 is None else c05 / 100)


def _by_family_score(inputs: ReportInputs, family: str) -> list[str]:
    systems = [s for s in ranked_systems(inputs) if (s, family) in inputs.answers]

    def key(system: str) -> tuple[float, str]:
        value = inputs.value(system, CORE, family, "pair_accuracy")
        return (-(value if value is not None else -1.0), system)

    return sorted(systems, key=key)


def legend(systems: list[str], root: str) -> str:
    """Buttons that highlight one system's curve (hover, focus or click); each links to nothing else."""
    buttons = "".join(f'<li><button type="button" class="key" data-system="{esc(s)}">{esc(s)}</button></li>'
                      for s in systems)
    return f'<ul class="legend-keys" aria-label="Highlight a system\'s curve">{buttons}</ul>'


def family_body(inputs: ReportInputs, family: str) -> str:
    root = "../"
    layout = inputs.layout(family)
    first = layout.items[0]
    systems = _by_family_score(inputs, family)
    chance = inputs.get(UNIFORM_GUESS, CORE, family, CHANCE_METRIC)
    keys = ", ".join(first.option_keys) if len({i.option_keys for i in layout.items}) == 1 else "vary per item"
    facts = (f"<dl class=\"facts\"><dt>Layer</dt><dd>{esc(layout.layer)}</dd><dt>Question</dt>"
             f"<dd>{esc(first.question)}</dd><dt>Options</dt><dd>{esc(keys)}</dd><dt>Items</dt><dd>{layout.size} in "
             f"{layout.groups} contrast groups ({layout.pairs.shape[0]} binary pairs)</dd><dt>Uniform guessing</dt>"
             f"<dd>{number(chance.value if chance else None, small=True)}% pair accuracy</dd></dl>")
    browse = paragraph(f'<a class="button" href="{root}groups.html#family={esc(family)}">Browse the contrast groups '
                       f"of {esc(family)}</a>")
    rows = []
    for system in systems:
        score = inputs.get(system, CORE, family, "pair_accuracy")
        item = inputs.get(system, CORE, family, "item_accuracy")
        rows.append(IntervalRow(system, score.value if score else None, score.ci_low if score else None,
                                score.ci_high if score else None, chance.value if chance else None,
                                f"{system}: pair accuracy {number(score.value if score else None)}, item accuracy "
                                f"{number(item.value if item else None)}"))
    chart = interval_chart(rows, "pairs", f"Pair accuracy on {family}",
                           f"Pair accuracy of {len(systems)} systems on {family} with 95% intervals; the tick is "
                           f"uniform guessing ({number(chance.value if chance else None)}%).", "pair accuracy (%)")
    table_rows = [[Cell(system_link(s, root), sort=s, header=True),
                   *[score_cell(inputs, s, CORE, family, m) for m, _ in FAMILY_COLUMNS],
                   *[score_cell(inputs, s, CORE, family, "pair_accuracy", level) for level in (1, 2, 3)]]
                  for s in systems]
    table = Table(f"Every core metric on {family}", ["System", *[h for _, h in FAMILY_COLUMNS], "Pair L1", "Pair L2",
                                                    "Pair L3"], table_rows, sortable=True)
    curves = [curve_of(inputs, s, family) for s in systems]
    rc = risk_coverage_chart(curves, "rc", f"Risk-coverage curves on {family}",
                             f"Risk (share wrong) against coverage (share answered, most confident first) for "
                             f"{len(curves)} systems on {family}; the dashed line is 5% risk and each dot marks the "
                             "system's C(0.05).", size=(640.0, 380.0))
    c05 = ", ".join(f"{esc(c.system)} {number(None if c.c05 is None else 100 * c.c05)}" for c in curves)
    coverage = section("Risk-coverage curves", paragraph(
        "Hover or focus a system below to pick out its curve. Each dot on the dashed 5% line is a system's C(0.05): "
        "the largest coverage whose risk stays at or under 5%.")
        + f'<figure class="highlightable">{rc}{legend(systems, root)}<figcaption>C(0.05) in %: {c05}.</figcaption>'
          "</figure>", "coverage")
    return (facts + browse + section("Pair accuracy by system", f"<figure>{chart}</figure>", "pairs")
            + section("All metrics", table.render(), "metrics") + coverage)

