"""`kill -9` and Ctrl-C of a sweep at several points, then resume: nothing lost, nothing run twice, no orphans."""

import signal
import time
from pathlib import Path

from test_sweep import children_running, staged_by_key, sweep_cli, wait_until

from modelcompat import catalog
from modelcompat.sweep import SweepConfig, run_sweep


def gone(pids: list[int]) -> bool:
    return not any(Path(f"/proc/{pid}").exists() for pid in pids)


def test_interrupts_then_resume(fixture_dir, ws, tmp_path, record):
    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join([*(str(fixture_dir / n) for n in ("tiny-llama", "tiny-qwen3")),
                              str(fixture_dir / "broken-config"), "nobody/no-such-model", "not an id!!"]) + "\n")
    args = ["--catalog", str(ids), "--backend", "eager", "--cores", "1", "--out", str(ws.staging),
            "--work", str(ws.cache)]
    # 1. kill -9 while it starts up and plans, before any test runs: nothing staged
    proc = sweep_cli(*args)
    time.sleep(1.0)
    proc.kill()
    proc.wait()
    at_planning = staged_by_key(ws.staging)
    # 2. Ctrl-C in the second model (the two bad-input rows land first): exit 130, its group killed, rows kept
    proc = sweep_cli(*args)
    busy = wait_until(lambda: len(staged_by_key(ws.staging)) == 3 and children_running(proc.pid, str(fixture_dir)))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "finished rows are kept" in err, err
    assert "line 5: 'not an id!!'" in err  # the bad line is named, and the rest went on
    assert gone(busy)
    first = staged_by_key(ws.staging)
    assert sorted(r for rs in first.values() for r in rs) == ["ERROR", "ERROR", "PASS"]  # no CRASH from the kill
    # 3. kill -9 in the middle of the remaining test: its run.py dies with the sweep (PDEATHSIG), rows intact
    proc = sweep_cli(*args)
    running = wait_until(lambda: children_running(proc.pid, str(fixture_dir)))
    time.sleep(2)
    proc.kill()
    proc.wait()
    wait_until(lambda: gone(running), limit=10)
    second = staged_by_key(ws.staging)
    # 4. resume: only the missing test runs, once
    summary = run_sweep(list(catalog.entries(str(ids)).entries), SweepConfig(backend="eager", cores=2), ws)
    final = staged_by_key(ws.staging)
    record("kept rows, no orphans, each test once", f"planning kill: {len(at_planning)} rows; Ctrl-C: {len(first)}; "
                                                     f"kill -9: {len(second)}, orphans 0; resume ran "
                                                     f"{len(summary.rows)}, final {len(final)}")
    assert at_planning == {} and second == first
    assert summary.already_staged == 3 and len(summary.rows) == 1 and summary.rows[0].result == "PASS"
    assert len(final) == 4 and all(len(results) == 1 for results in final.values())
    assert sorted(r for rs in final.values() for r in rs) == ["ERROR", "ERROR", "PASS", "PASS"]
