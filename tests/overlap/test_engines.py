"""The Dask engine on a real local cluster of two worker processes: the same flags and bytes as one process."""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster, get_task_stream

from decisionpivot.errors import DecisionPivotError
from decisionpivot.overlap.run import filter_folder
from tests.overlap.helpers import jsonl_bytes, local_cluster, random_documents, random_reference
from tests.overlap.test_run import dp


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with local_cluster() as local:
        yield local


def corpus(tmp_path: Path) -> tuple[Path, list[Path]]:
    folder, items = random_reference(tmp_path, random.Random(17))
    rng = random.Random(18)
    train = tmp_path / "train"
    train.mkdir()
    (train / "a.txt").write_text("\n".join(random_documents(rng, items, count=120, share=0.01)), encoding="utf-8")
    (train / "b.jsonl.gz").write_bytes(gzip.compress(jsonl_bytes(random_documents(rng, items, count=60))))
    (train / "c.jsonl").write_bytes(jsonl_bytes(random_documents(rng, items, count=60)))
    return folder, [train / "a.txt", train / "b.jsonl.gz", train / "c.jsonl"]


def test_two_dask_workers_flag_exactly_what_one_process_flags(tmp_path: Path, cluster: LocalCluster) -> None:
    folder, training = corpus(tmp_path)
    local, _ = filter_folder(folder, training, tmp_path / "local", part_bytes=4000, resume=False)
    with Client(cluster) as client, get_task_stream(client) as stream:
        spread, _ = filter_folder(folder, training, tmp_path / "dask", engine="dask",
                                  address=cluster.scheduler_address, part_bytes=4000)
    workers = {task["worker"] for task in stream.data if str(task["key"]).startswith("dp-overlap-")}
    assert len(workers) == 2  # both workers scanned parts
    assert spread == local and 0 < sum(r.flagged for r in local) < 80
    for name in ("r.jsonl", "overlap.json"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert len((tmp_path / "dask" / "overlap.state").read_text().splitlines()) > 10  # one line per finished part


def test_a_worker_error_is_the_same_clear_error(tmp_path: Path, cluster: LocalCluster) -> None:
    folder, training = corpus(tmp_path)
    broken = tmp_path / "train" / "d.jsonl.gz"
    broken.write_bytes(gzip.compress(b'{"text": "x"}\n' * 1000)[:-20])
    with pytest.raises(DecisionPivotError, match=rf"^{broken}: corrupt or truncated gzip file"):
        filter_folder(folder, [*training, broken], tmp_path / "out", engine="dask", address=cluster.scheduler_address)


def test_the_command_starts_a_local_cluster_of_two_workers(tmp_path: Path) -> None:
    folder, training = corpus(tmp_path)
    filter_folder(folder, [tmp_path / "train"], tmp_path / "local", resume=False)
    result = dp("overlap", str(tmp_path / "train"), "--items", str(folder), "--out", str(tmp_path / "dask"),
                "--engine", "dask", "--workers", "2", "--part-mb", "1")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "dask" / "overlap.json").read_bytes() == (tmp_path / "local" / "overlap.json").read_bytes()
    unreachable = dp("overlap", str(training[0]), "--items", str(folder), "--out", str(tmp_path / "x"), "--engine",
                     "dask", "--address", "tcp://127.0.0.1:9")
    assert unreachable.returncode == 2 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in unreachable.stderr
