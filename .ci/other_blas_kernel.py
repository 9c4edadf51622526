"""Print an OpenBLAS kernel other than the one this CPU picks, for ``OPENBLAS_CORETYPE`` (empty: none to pick).

x86_64: Sandybridge where the CPU picks Haswell, Haswell otherwise. CI's `dvc repro` runs under it with one
BLAS/OpenMP thread, and so does tests/release/test_dvc.py's fresh-copy test (it loads this file): dvc.lock,
made with the default settings, must come out again as another machine would run the pipeline.
"""

from __future__ import annotations

import platform


def other_kernel() -> str | None:
    """The kernel name, or None where kernels differ by CPU family (aarch64): the thread count still varies."""
    import numpy  # noqa: F401  (loads OpenBLAS, so threadpoolctl sees it)
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    found = {info.get("architecture") for info in threadpool_info() if info.get("internal_api") == "openblas"}
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    return "Sandybridge" if "Haswell" in found else "Haswell"


if __name__ == "__main__":
    print(other_kernel() or "")
