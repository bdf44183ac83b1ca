"""`make run`'s job on a subset: fixtures -> sweep -> publish -> query table (the explorer is tested elsewhere)."""

import subprocess
import sys

from modelcompat import query


def test_demo_sweeps_publishes_and_prints_the_table(tmp_path):
    out = subprocess.run([sys.executable, "-m", "modelcompat", "demo", "--dir", str(tmp_path), "--backend", "eager",
                          "--only", "tiny-qwen3", "broken-config", "--no-serve"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "published 2 rows" in out.stdout and "eager-2.13.0+cpu__transformers-5.24.0.parquet" in out.stdout
    rows = {r["model_id"].rsplit("/", 1)[1]: r["result"] for r in query.search(query.open_dataset(tmp_path / "dataset"))}
    assert rows == {"tiny-qwen3": "PASS", "broken-config": "ERROR"}
    assert (tmp_path / "dataset" / "README.md").exists()
