"""The repository's licence files are the full official texts the package ships."""

from __future__ import annotations

from pathlib import Path

from decisionpivot.licenses.fulltext import copyright_line, licence_text, mit_text

REPO = Path(__file__).resolve().parents[2]


def test_code_licence_is_apache_2_full_text() -> None:
    text = licence_text("Apache-2.0")
    assert (REPO / "LICENSE").read_text(encoding="utf-8") == text
    assert (REPO / "licenses" / "LICENSE-CODE").read_text(encoding="utf-8") == text
    assert "Apache License" in text.splitlines()[1] and "Version 2.0, January 2004" in text
    for section in range(1, 10):
        assert f"\n   {section}. " in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text


def test_core_items_licence_is_cc_by_4_legal_code() -> None:
    text = licence_text("CC-BY-4.0")
    assert (REPO / "licenses" / "LICENSE-CORE-ITEMS").read_text(encoding="utf-8") == text
    assert text.startswith("Attribution 4.0 International")
    for number, title in enumerate(("Definitions", "Scope", "License Conditions", "Sui Generis Database Rights",
                                    "Disclaimer of Warranties and Limitation of Liability", "Term and Termination",
                                    "Other Terms and Conditions", "Interpretation"), start=1):
        assert f"Section {number} -- {title}." in text
    assert "Creative Commons may be contacted at creativecommons.org." in text


def test_mit_text_carries_the_sources_copyright_line() -> None:
    line = copyright_line("Copyright (c) 2023 Princeton Natural Language Processing; include the MIT notice")
    assert line == "Copyright (c) 2023 Princeton Natural Language Processing"
    text = mit_text(line)
    assert text.startswith(f"MIT License\n\n{line}\n\nPermission is hereby granted")
    assert text.rstrip().endswith("OTHER DEALINGS IN THE\nSOFTWARE.")
    assert copyright_line("cite the paper") is None
