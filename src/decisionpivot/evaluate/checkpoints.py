"""Loading a local transformers checkpoint safely, for the in-process kinds (``hf`` and ``decision``).

Two rules, whatever the checkpoint holds:

* **Never its code.** Every transformers loader is called with ``trust_remote_code=False``. Left unset,
  transformers *asks on stdin* whether to run a checkpoint's own Python files (``auto_map`` in its
  config), and a ``y`` piped in by a script ran them; with ``False`` it refuses, and the refusal becomes
  one line saying so. dp has no setting that runs a checkpoint's code.
* **Never a pickle beyond tensors.** transformers reads ``pytorch_model.bin`` with
  ``torch.load(weights_only=True)``, which refuses any pickled object other than tensors and plain
  containers (an ``os.system`` call hidden in the file, say); that refusal, too, becomes one line
  naming the file's problem and the safe format (safetensors), not a traceback.

Any other failure while loading (a missing file, a corrupt safetensors header, a config transformers
does not know) becomes ``system NAME: cannot load PATH: <the loader's message on one line>``.
"""

from __future__ import annotations

import pickle
import re
from typing import Any

from decisionpivot.errors import DecisionPivotError

MESSAGE_CHARS = 400
"""A loader's message is cut to this many characters (some quote whole configs)."""


def one_line(message: str) -> str:
    """``message`` with every run of whitespace (newlines included) as one space, cut to :data:`MESSAGE_CHARS`."""
    flat = " ".join(message.split())
    return flat if len(flat) <= MESSAGE_CHARS else flat[:MESSAGE_CHARS - 3] + "..."


def load_error(system: str, path: str, exc: BaseException) -> DecisionPivotError:
    """The one-line error for a checkpoint at ``path`` that ``exc`` kept from loading (see the module docstring)."""
    message = str(exc)
    where = f"system {system!r}: cannot load {path!r}"
    if "custom code" in message and "trust_remote_code" in message:
        return DecisionPivotError(f"{where}: the checkpoint needs its own Python code (auto_map in its config), "
                                  "which dp never runs; use a checkpoint whose architecture transformers itself has")
    if isinstance(exc, pickle.UnpicklingError) or "Weights only load failed" in message:
        blocked = re.search(r"unsupported GLOBAL (\S+)", message)
        what = f" ({blocked.group(1)})" if blocked else ""
        return DecisionPivotError(f"{where}: its pickle weights hold objects other than tensors{what}, which could "
                                  "run code, and are refused; use the checkpoint's safetensors weights")
    return DecisionPivotError(f"{where}: {type(exc).__name__}: {one_line(message)}")


def torch_dtype(system: str, torch: Any, name: str) -> Any:
    """``auto`` (the weights' own dtype) or the torch dtype called ``name``, read as ``transformers serve --dtype``."""
    if name == "auto":
        return name
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise DecisionPivotError(f"system {system!r}: dtype {name!r} is not a torch dtype "
                                 "(auto, float32, bfloat16, float16, ...)")
    return dtype
