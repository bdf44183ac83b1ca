"""Fluency judge: accuracy on the labelled set (overall, per kind, confusion counts), the cutoffs a fresh fit gives
against the stored ones, and the time to load the judge and to score one text. Run: `python -m bench.bench_judge`.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

LABELLED = Path(__file__).resolve().parents[1] / "tests" / "data" / "fluency.jsonl"


def timed_one_by_one(judge, examples) -> tuple[list[float], list[float]]:
    """Wall seconds and CPU seconds (this process, all threads) of judge.score, one text at a time."""
    wall, cpu = [], []
    for e in examples:
        started, cpu_started = time.perf_counter(), time.process_time()
        judge.score(e.text)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    return wall, cpu


def timed_batched(judge, examples) -> tuple[list, float]:
    started = time.perf_counter()
    signals = judge.signals_many([e.text for e in examples])
    return signals, time.perf_counter() - started


def leave_one_out(examples, signals) -> int:
    """Texts judged right by cutoffs fitted on all the other texts: an out-of-sample check of the fit."""
    from modelcompat.judge import THRESHOLD, combine, fit_cutoffs

    right = 0
    for i, (e, s) in enumerate(zip(examples, signals)):
        rest = [x for j, x in enumerate(zip(examples, signals)) if j != i]
        cutoffs = fit_cutoffs([x[1] for x in rest], [x[0].label for x in rest])
        right += (combine(s, cutoffs) >= THRESHOLD) == e.label
    return right


def report_accuracy(examples, signals, cutoffs) -> None:
    from modelcompat.judge import THRESHOLD, by_kind, combine, confusion

    verdicts = [combine(s, cutoffs) >= THRESHOLD for s in signals]
    labels = [e.label for e in examples]
    right = sum(v == label for v, label in zip(verdicts, labels))
    print(f"accuracy {right}/{len(labels)} = {right / len(labels):.3f}   confusion {confusion(labels, verdicts)}  "
          f"(goal >= 0.95, the bar tests/test_judge.py holds)")
    for kind, (ok, total) in sorted(by_kind(examples, verdicts).items()):
        print(f"  {kind:15} {ok:3}/{total:<3} {ok / total:.3f}")
    for e, s, v in zip(examples, signals, verdicts):
        if v != e.label:
            print(f"  wrong ({e.kind}, judged {'fluent' if v else 'not fluent'}): ppl {s.perplexity:.1f} words "
                  f"{s.english_words:.2f} d2 {s.distinct2:.2f}  {e.text[:70]!r}")


def ms(seconds: list[float]) -> str:
    return (f"{min(seconds) * 1000:.0f} ms min, {statistics.median(seconds) * 1000:.0f} ms median, "
            f"{max(seconds) * 1000:.0f} ms max")


def report_timing(judge, examples) -> list:
    wall, cpu = timed_one_by_one(judge, examples)
    signals, batched = timed_batched(judge, examples)
    tokens = [s.tokens for s in signals]
    print(f"{len(examples)} texts, {statistics.median(tokens):.0f} tokens median (max {max(tokens)}). judge.score "
          f"one text at a time: wall {ms(wall)}; CPU {ms(cpu)}.\nsignals_many (8 per batch): "
          f"{batched:.1f} s for all, {batched / len(examples) * 1000:.0f} ms per text "
          f"(load average now {os.getloadavg()[0]:.1f})")
    return signals


def report_fit(examples, signals) -> None:
    from modelcompat.judge import DEFAULT_CUTOFFS, accuracy, fit_cutoffs, rounded

    labels = [e.label for e in examples]
    fitted = fit_cutoffs(signals, labels)
    print(f"stored cutoffs {DEFAULT_CUTOFFS}\nfresh fit      {rounded(fitted)} "
          f"(accuracy {accuracy(signals, labels, fitted):.3f} unrounded)")
    right = leave_one_out(examples, signals)
    print(f"leave-one-out accuracy (cutoffs refitted without the text judged) {right}/{len(examples)} = "
          f"{right / len(examples):.3f}")


def main() -> None:
    from modelcompat.judge import DEFAULT_CUTOFFS, Judge, read_labelled

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    started = time.perf_counter()
    judge = Judge.load()
    print(f"judge {judge.label}: loaded in {time.perf_counter() - started:.2f} s (load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    examples = read_labelled(LABELLED)
    signals = report_timing(judge, examples)
    report_fit(examples, signals)
    report_accuracy(examples, signals, DEFAULT_CUTOFFS)


if __name__ == "__main__":
    main()
