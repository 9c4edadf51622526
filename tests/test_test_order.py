"""The test command's own scheduling: the longest modules named in tests/conftest.py exist and go first."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.conftest import LONGEST_FIRST, pytest_configure

ROOT = Path(__file__).resolve().parents[1]


def test_every_module_named_longest_first_exists() -> None:
    """A renamed or removed module would silently lose its place at the front."""
    missing = [path for path in LONGEST_FIRST if not (ROOT / path).is_file()]
    assert not missing, f"tests/conftest.py LONGEST_FIRST names modules that are gone: {missing}"
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)


def _configured(*args: str) -> SimpleNamespace:
    config = SimpleNamespace(option=SimpleNamespace(dist="load", loadscopereorder=True),
                             invocation_params=SimpleNamespace(args=args))
    pytest_configure(config)  # type: ignore[arg-type]
    return config.option


def test_xdist_hands_out_whole_modules_in_the_collected_order() -> None:
    """`-n 2` alone: loadscope, without its reordering by test count (which put one-test modules of 40 s last)."""
    assert vars(_configured("-n", "2")) == {"dist": "loadscope", "loadscopereorder": False}
    assert vars(_configured("-n", "2", "--dist", "load")) == {"dist": "load", "loadscopereorder": False}
    assert _configured("-n", "2", "--loadscope-reorder").loadscopereorder is True
