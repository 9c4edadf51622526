"""Text hygiene: the defects a careful writer would not publish, counted per item, as part of `dp audit`.

The paper screened every item for textual quality before each version (its Table E2). This module is
that screen, run over every string a reader sees: the state (for structured states, every string
value; keys are field names), the question and the option labels. It finds five kinds of defect:

* ``doubled``: a word or a two-word phrase written twice in a row ("front desk desk", "at at",
  "fragile on fragile on").
* ``agreement``: a count that disagrees with its noun ("1 people", "at least 1 days").
* ``article``: "a" before a vowel sound or "an" before a consonant sound ("a adult", "a infusion"),
  judged by inflect's rules for the indefinite article.
* ``spelling``: a word that the British English Hunspell dictionary (SCOWL's en_GB-ise, from the
  ``dictionary-en-gb`` package, see ``dictionary/SOURCE.json``) does not know ("syllabuss").
* ``grammar``: a function word where no careful writer puts one: an article, possessive or
  conjunction that ends a sentence, or an article followed by an article, preposition or conjunction
  ("a after", "a on") — the marks of filler assembled from single words instead of phrases.

Invented names and identifiers are exempt by construction, never by a list of exceptions:

* an identifier is a token with a digit, an underscore, an operator character or a dot inside
  (``INV-1014.txt``, ``line_id``, ``>=2.0``), a token with two capitals or an inner capital
  (``SEK``, ``MWh``), a field name (a lowercase word written right before a colon, ``billing:``,
  ``"enum":``), or a key of a structured state;
* a name is a word on the allow-list of ``generate/common/names.py`` (``NAME_WORDS``: the given and family
  names, towns, brands, countries, code words and organisation endings names are built from, and every
  look-alike spelling of them), compared without regard to case. Items of the earlier editions (core 1.1
  and 1.2, whose generator versions the current families no longer draw) wrote invented names from
  syllables; for them, and for framed items (which carry their suite's version, not their core item's), a
  word is also a name when that name grammar spells it: two or three of its syllables, in lower case, or
  capitalised with at most one letter changed (names and their look-alikes). A current core item is held to
  the allow-list alone (:func:`syllable_names`).

A finding names the item, the kind, the text around it and where it is (``state``, ``question``,
``option b``). The gate (``dp audit --strict``) fails on any finding.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from decisionpivot.items import Item, string_values

DICTIONARY = Path(__file__).with_name("dictionary") / "en_GB"
"""Path stem of the Hunspell files (``en_GB.aff``, ``en_GB.dic``)."""

KINDS = ("doubled", "agreement", "article", "spelling", "grammar")
"""The kinds of text finding, in report order."""

EXAMPLES = 5
"""Findings quoted per family and kind in the report."""

ARTICLES = frozenset({"a", "an", "the"})
DETERMINERS = ARTICLES | {"its", "their", "our", "your", "his", "her", "every", "each", "this", "these", "those"}
PREPOSITIONS = frozenset({
    "about", "above", "after", "against", "at", "before", "behind", "below", "beneath", "beside", "between",
    "by", "during", "for", "from", "in", "inside", "into", "near", "of", "off", "on", "onto", "over", "past",
    "through", "to", "towards", "under", "until", "upon", "via", "with", "within", "without",
})
CONJUNCTIONS = frozenset({"and", "or", "but", "nor", "because", "although", "unless", "whereas"})
"""Closed word classes of English grammar (the grammar check's vocabulary, not exemptions)."""

PREFIXES = frozenset({"pre", "re", "co", "non", "sub", "multi", "anti", "semi", "self", "cross", "post"})
"""Bound prefixes written with a hyphen (``pre-release``, ``co-signed``): the dictionary lists words, not prefixes."""


@dataclass(frozen=True)
class TextFinding:
    """One text defect in one item."""

    item: str
    """Id of the item."""
    kind: str
    """One of :data:`KINDS`."""
    text: str
    """The defective words with a few words of context."""
    where: str
    """``state``, ``question`` or ``option <key>``."""


@cache
def _dictionary() -> Any:
    from spylls.hunspell import Dictionary

    return Dictionary.from_files(str(DICTIONARY))


@cache
def _inflect() -> Any:
    """inflect's engine, imported without typeguard's run-time checks.

    inflect decorates its classes with typeguard's ``@typechecked``, which re-parses and re-compiles their
    source on every import: 2.1 s of the 2.3 s an import took here, spent again by every ``dp audit`` (the main
    job runs six). The checks guard inflect's own argument types, which the two calls below always satisfy; so
    ``typechecked`` is the identity while inflect is imported, and typeguard is left as it was."""
    import typeguard

    typechecked = typeguard.typechecked

    def unchecked(target: Any = None, **_: Any) -> Any:
        return target if target is not None else (lambda function: function)

    typeguard.typechecked = unchecked
    try:
        import inflect
    finally:
        typeguard.typechecked = typechecked
    return inflect.engine()


def load_text_resources() -> None:
    """Load the dictionary and inflect now (each once per process; the checks load them when first needed)."""
    _dictionary()
    _inflect()


@cache
def known_word(word: str) -> bool:
    """True when the en_GB dictionary knows ``word`` (as written, or lower-cased at a sentence start)."""
    dictionary = _dictionary()
    return bool(dictionary.lookup(word) or (word[:1].isupper() and dictionary.lookup(word.lower())))


@cache
def _name_words() -> frozenset[str]:
    """The allow-list of the current generators' names, lower-cased."""
    from decisionpivot.generate.common.names import NAME_WORDS

    return frozenset(word.lower() for word in NAME_WORDS)


def name_word(word: str) -> bool:
    """True when ``word`` is on the current generators' allow-list of name parts (any case)."""
    return word.lower() in _name_words()


SYLLABLE_ONSETS = (
    "b", "br", "d", "dr", "f", "g", "gr", "h", "k", "kr", "l", "m", "n", "p", "pr", "r",
    "s", "sk", "st", "t", "tr", "v", "z", "zh", "y", "j", "kv", "sv", "dv", "tl",
)
SYLLABLE_NUCLEI = ("a", "e", "i", "o", "u", "ae", "ei", "ou", "y")
SYLLABLE_CODAS = ("n", "m", "r", "l", "s", "k", "t", "x", "rn", "lk", "sk", "v", "z")
"""The syllables core 1.1 and 1.2 built invented names from (their ``generate/common/names.py``): what the check
exempts in those editions' items only."""


@cache
def _invented_name_pattern() -> re.Pattern[str]:
    def alternatives(parts: Sequence[str]) -> str:
        return "|".join(sorted({p for p in parts if p}, key=lambda p: (-len(p), p)))

    syllable = (f"(?:{alternatives(SYLLABLE_ONSETS)})(?:{alternatives(SYLLABLE_NUCLEI)})"
                f"(?:{alternatives(SYLLABLE_CODAS)})?")
    return re.compile(f"(?:{syllable}){{2,3}}")


def _spelled_by_name_grammar(word: str) -> bool:
    """True when the 1.1/1.2 name grammar spells ``word`` exactly (lower case or capitalised): the cheap part of
    :func:`invented_name`, tried before the dictionary, which is slowest on the words it does not know."""
    return word.isalpha() and word[1:].islower() and bool(_invented_name_pattern().fullmatch(word.lower()))


@cache
def invented_name(word: str) -> bool:
    """True when the 1.1/1.2 name grammar can spell ``word``: lower case as it made it (``NameForge.word``), or
    capitalised with at most one letter changed (names and their look-alikes)."""
    if not (word.isalpha() and word[1:].islower()):
        return False
    if _spelled_by_name_grammar(word):
        return True
    if word.islower():
        return False
    pattern = _invented_name_pattern()
    lower = word.lower()
    letters = "abcdefghijklmnopqrstuvwxyz"
    return any(pattern.fullmatch(lower[:i] + c + lower[i + 1:]) for i in range(1, len(lower)) for c in letters
               if c != lower[i])


_IDENTIFIER = re.compile(r"[\d_@=<>~^+#*\\]|\w\.\w|[a-z][A-Z]|[A-Z].*[A-Z]")
_FIELD_NAME = re.compile(r'"?[a-z][a-z_-]*"?:')
_WORD = re.compile(r"[A-Za-z]+(?:['’][a-z]+)?")


def _words_to_check(token: str) -> Iterator[str]:
    """The words of one whitespace-delimited token that the dictionary must know (identifiers give none)."""
    token = token.strip(".,;:!?()[]{}\"'“”‘’|")
    for part in token.split("/"):  # folders and alternatives: every part is a word of its own
        if not part or _IDENTIFIER.search(part):
            continue
        pieces = [p for p in part.split("-") if p]
        if len(pieces) > 1 and pieces[0].lower() in PREFIXES:
            pieces = pieces[1:]
        for piece in pieces:
            yield from _WORD.findall(piece)


_TOKEN = re.compile(r"\S+")
_POSSESSIVE = re.compile(r"['’]s$")


@cache
def _misspelled_in_token(token: str, syllable_names: bool = False) -> tuple[str, ...]:
    """The words of one whitespace-delimited token that are neither identifiers, names nor in the dictionary
    (tokens repeat across lines: each distinct one is checked once). Names are the allow-list's words, and with
    ``syllable_names`` (items of core 1.1 and 1.2, framed items) also what the 1.1/1.2 name grammar spells."""
    if _FIELD_NAME.fullmatch(token):  # a field name (``billing:``, ``"enum":``)
        return ()
    out = []
    for word in _words_to_check(token):
        bare = _POSSESSIVE.sub("", word)
        if len(bare) < 2 or _IDENTIFIER.search(bare):
            continue
        if name_word(bare) or known_word(bare):
            continue
        if syllable_names and (_spelled_by_name_grammar(bare) or invented_name(bare)):
            continue
        out.append(word)
    return tuple(out)


def misspelled(text: str, syllable_names: bool = False) -> list[str]:
    """Words of ``text`` that are neither identifiers, names nor in the dictionary (``syllable_names``: the names
    of core 1.1 and 1.2 items, see :func:`_misspelled_in_token`)."""
    return [word for token in _TOKEN.findall(text) for word in _misspelled_in_token(token, syllable_names)]


_DOUBLED = re.compile(r"\b([A-Za-z]+(?: [A-Za-z]+)?) \1\b", re.IGNORECASE)


def doubled(text: str) -> list[str]:
    """Words or two-word phrases written twice in a row on one line."""
    return [m.group(0) for m in _DOUBLED.finditer(text)]


_COUNT_NOUN = re.compile(r"(?<![\d.,:/-])\b(\d+) ([a-z]+)\b")


@cache
def _plural(word: str) -> bool:
    """True when ``word`` is the plural of another dictionary word (``people``, ``days``; not ``status``)."""
    if word.endswith(("ss", "us", "is")):  # class, status, analysis: singulars that end like plurals
        return False
    singular = _inflect().singular_noun(word)
    return bool(singular) and singular != word and known_word(singular)


def agreement(text: str) -> list[str]:
    """A count of one written with a plural noun ("1 people", "1 days")."""
    return [m.group(0) for m in _COUNT_NOUN.finditer(text) if m.group(1) == "1" and _plural(m.group(2))]


_ARTICLE = re.compile(r"(?:(?<=^)|(?<=[\s(\"“]))(a|an|A|An) ([A-Za-z][\w-]*)")


def article(text: str) -> list[str]:
    """An indefinite article that does not fit the sound of the next word ("a adult", "an pallet").

    A capital ``A`` that is not at a sentence start is a label (``ledger A``, ``version A is``), and one
    followed by a capitalised word or a function word is taken as a label too.
    """
    out = []
    for m in _ARTICLE.finditer(text):
        art, word = m.group(1), m.group(2)
        if art[0] == "A" and (not _sentence_start(text, m.start()) or not word[0].islower()
                              or word in _FUNCTION_WORDS):
            continue
        if _IDENTIFIER.search(word) or word.isupper():
            continue
        if _indefinite_article(word) != art.lower():
            out.append(m.group(0))
    return out


@cache
def _indefinite_article(word: str) -> str:
    """``a`` or ``an``: the article inflect puts before ``word``."""
    return str(_inflect().a(word).split(" ", 1)[0].lower())


_FUNCTION_WORDS = DETERMINERS | PREPOSITIONS | CONJUNCTIONS | {"is", "was", "has", "had", "may", "must", "only"}
_SENTENCE_END = re.compile(r"\b([A-Za-z]+)(?=[.!?;]\s|[.!?;]$|\s*\n|$)")
_ARTICLE_BEFORE_FUNCTION = re.compile(r"\b(a|an|the|A|An|The) ([a-z]+)\b")
_NOT_AFTER_AN_ARTICLE = ARTICLES | PREPOSITIONS | CONJUNCTIONS
_NOT_ENDING_A_SENTENCE = DETERMINERS | CONJUNCTIONS


def grammar(text: str) -> list[str]:
    """Function words out of place: a sentence that ends in an article, possessive or conjunction, or an
    article directly followed by an article, a preposition or a conjunction ("a after", "the on")."""
    out = []
    for m in _ARTICLE_BEFORE_FUNCTION.finditer(text):
        if m.group(2) in _NOT_AFTER_AN_ARTICLE:
            if m.group(1) == "A" and not _sentence_start(text, m.start()):
                continue  # ledger A and B, version A on ...: a label
            out.append(m.group(0))
    for m in _SENTENCE_END.finditer(text):
        word = m.group(1)
        if word.lower() in _NOT_ENDING_A_SENTENCE and word != "A":  # "ledger A." is a label
            start = max(0, m.start() - 30)
            out.append(text[start:m.end()].rsplit("\n", 1)[-1])
    return out


def _sentence_start(text: str, at: int) -> bool:
    """True when position ``at`` of ``text`` starts a sentence (after quotes and brackets)."""
    before = text[:at].rstrip(" \"“(")
    return not before or before[-1] in ".!?:\n"


CHECKS: dict[str, Callable[[str], list[str]]] = {
    "doubled": doubled, "agreement": agreement, "article": article, "spelling": misspelled, "grammar": grammar}
"""Kind -> check; every check returns the offending spans of one text."""


def _syllable_spelling(text: str) -> list[str]:
    return misspelled(text, syllable_names=True)


@cache
def _current_versions() -> dict[str, str]:
    from decisionpivot.generate.registry import families

    return {spec.name: spec.version for spec in families()}


def syllable_names(item: Item) -> bool:
    """True when ``item``'s names may be spelt by the 1.1/1.2 syllable grammar: an item drawn by an earlier generator
    version than the current one of its family (core 1.1 and 1.2), or a framed item of an invariance suite, which
    carries the suite's version, not its core item's (suite 1.0 frames core 1.2). Only a current core item is held
    to the allow-list alone."""
    if item.extra.get("framing") is not None:
        return True
    current = _current_versions().get(item.family)
    return current is not None and item.version != current


def reader_texts(item: Item) -> Iterator[tuple[str, str]]:
    """``(where, text)`` for every string a reader of the item sees."""
    if isinstance(item.state, str):
        yield "state", item.state
    else:
        for text in string_values(item.state):
            yield "state", text
    yield "question", item.question
    for option in item.options:
        yield f"option {option.key}", option.meaning


def line_findings(line: str, syllable_names: bool = False) -> list[tuple[str, str]]:
    """``(kind, span)`` of every defect of one line, by kind in :data:`CHECKS` order (``syllable_names``: of an item
    of core 1.1 or 1.2)."""
    checks = {**CHECKS, "spelling": _syllable_spelling} if syllable_names else CHECKS
    return [(kind, span) for kind, check in checks.items() for span in check(line)]


def text_findings(items: Sequence[Item]) -> list[TextFinding]:
    """Every text finding of ``items``, in item order, then by place and kind.

    Generated items repeat many lines (the 7,800 items of core 1.2 have 457,000 lines, 114,000 of them
    distinct), so each distinct line is checked once."""
    findings = []
    checked: dict[tuple[str, bool], list[tuple[str, str]]] = {}
    for item in items:
        legacy = syllable_names(item)
        for where, text in reader_texts(item):
            for line in text.split("\n"):
                found = checked.get((line, legacy))
                if found is None:
                    found = checked[line, legacy] = line_findings(line, legacy)
                findings.extend(TextFinding(item.id, kind, span, where) for kind, span in found)
    return findings


def text_report(items: Sequence[Item]) -> dict[str, Any]:
    """Counts per kind, the items affected and a few quoted findings per kind (for audit.json)."""
    findings = text_findings(items)
    counts = Counter(f.kind for f in findings)
    examples: dict[str, list[str]] = {}
    quoted: set[tuple[str, str]] = set()  # each defective text once per kind
    for f in findings:
        shown = examples.setdefault(f.kind, [])
        if len(shown) < EXAMPLES and (f.kind, f.text) not in quoted:
            quoted.add((f.kind, f.text))
            shown.append(f'{f.item} ({f.where}): "{f.text}"')
    return {"findings": len(findings), "items_affected": len({f.item for f in findings}),
            "by_kind": {k: counts.get(k, 0) for k in KINDS}, "examples": examples}
