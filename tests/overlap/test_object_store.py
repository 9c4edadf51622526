"""s3:// inputs through s3fs against a real S3 server on the loopback interface (moto's server, from PyPI)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import boto3
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import s3fs
import zstandard
from moto.server import ThreadedMotoServer

from decisionpivot.overlap.run import filter_folder
from tests.overlap.helpers import jsonl_bytes, local_cluster, random_documents, random_reference


@pytest.fixture
def bucket(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://{host}:{port}"}.items():
        monkeypatch.setenv(name, value)  # the Dask workers started below inherit these
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    s3fs.S3FileSystem.clear_instance_cache()
    boto3.client("s3").create_bucket(Bucket="corpus")
    try:
        yield "corpus"
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        server.stop()


def test_an_s3_corpus_gives_what_its_local_copy_gives_here_and_on_two_dask_workers(bucket: str,
                                                                                 tmp_path: Path) -> None:
    folder, items = random_reference(tmp_path, random.Random(23))
    rng = random.Random(24)
    local = tmp_path / "train"
    local.mkdir()
    (local / "a.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(jsonl_bytes(random_documents(rng, items))))
    (local / "b.txt").write_text("\n".join(random_documents(rng, items, count=80, share=0.01)), encoding="utf-8")
    pq.write_table(pa.table({"text": random_documents(rng, items)}), local / "c.parquet", row_group_size=10)
    s3 = boto3.client("s3")
    for path in sorted(local.iterdir()):
        s3.put_object(Bucket=bucket, Key=f"v1/{path.name}", Body=path.read_bytes())
    expected, _ = filter_folder(folder, [local], tmp_path / "local", part_bytes=3000, resume=False)
    assert 0 < sum(r.flagged for r in expected) < 80
    here, scan = filter_folder(folder, [f"s3://{bucket}/v1/"], tmp_path / "s3", part_bytes=3000)
    assert here == expected
    assert [f.url for f in scan.files] == [f"s3://{bucket}/v1/{name}" for name in ("a.jsonl.zst", "b.txt", "c.parquet")]
    local_flags = (tmp_path / "local" / "r.jsonl").read_bytes()
    assert (tmp_path / "s3" / "r.jsonl").read_bytes() == local_flags
    with local_cluster() as cluster:
        spread, _ = filter_folder(folder, [f"s3://{bucket}/v1/*"], tmp_path / "dask", engine="dask",
                                  address=cluster.scheduler_address, part_bytes=3000)
    assert spread == expected and (tmp_path / "dask" / "r.jsonl").read_bytes() == local_flags
    # a changed object (new ETag) is scanned again on resume; the unchanged ones are not
    s3.put_object(Bucket=bucket, Key="v1/b.txt", Body=(local / "b.txt").read_bytes() + b"\nmore")
    again, rescan = filter_folder(folder, [f"s3://{bucket}/v1/"], tmp_path / "s3", part_bytes=3000)
    assert again == expected and rescan.scanned_bytes == (local / "b.txt").stat().st_size + 5
