"""A full disk while staging and while publishing: a clear error, no partial file, no row lost."""

import os
import subprocess

import pytest

from modelcompat import dataset, errors
from modelcompat.store import stage_row, staged_rows
from resultrows import make_row


@pytest.fixture
def tiny_disk(tmp_path):
    """A 256 KiB tmpfs: writes past it fail with ENOSPC, as on a full disk."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def leftovers(folder):
    return sorted(p.name for p in folder.rglob(".*tmp*"))


def test_disk_full_while_staging(tiny_disk, record):
    big = "x" * 60_000  # about five rows fit
    written = 0
    with pytest.raises(errors.WriteFailed) as info:
        for i in range(100):
            stage_row(tiny_disk / "staging", make_row(f"org/m{i}", notes=big, tested_at=f"2026-11-29T10:00:{i:02d}"))
            written += 1
    rows = staged_rows(tiny_disk / "staging")
    kept = f"{len(rows)} of {written} rows kept"
    record("clear error; earlier rows intact", f"WriteFailed ({info.value.detail}); {kept}")
    assert "No space left on device" in errors.message(info.value)
    assert written > 0 and len(rows) == written and leftovers(tiny_disk) == []


def test_disk_full_while_publishing(tiny_disk, tmp_path, record):
    staging = tmp_path / "staging"
    rows = [make_row(f"org/m{i}", run_py=os.urandom(60_000).hex()) for i in range(8)]  # ~60 KB each, compressed
    for row in rows:
        stage_row(staging, row)
    with pytest.raises(errors.WriteFailed) as info:
        dataset.publish_local(staging, tiny_disk / "dataset")
    kept = staged_rows(staging)
    record("clear error; staged rows stay", f"WriteFailed ({info.value.detail}); {len(kept)} of 8 rows still staged")
    assert len(kept) == 8 and leftovers(tiny_disk) == []
    assert not list((tiny_disk / "dataset").glob("*.parquet"))
