"""A ``serve:`` command whose server leaves dp's process group: ``python -m tests.evaluate.detaching_server MODE PORT
REPORT`` starts :mod:`tests.evaluate.fake_openai_server` in a session of its own (``setsid``), as a daemonising server
does; MODE ``wait`` stays (a wrapper), ``exit`` returns at once (the classic double fork: the server is an orphan)."""

from __future__ import annotations

import subprocess
import sys
import time


def main(argv: list[str]) -> None:
    mode, port, report = argv
    subprocess.Popen([sys.executable, "-m", "tests.evaluate.fake_openai_server", port, report],
                     start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    while mode == "wait":
        time.sleep(3600)


if __name__ == "__main__":
    main(sys.argv[1:])
