import json
import math
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from modelcompat import verify
from modelcompat.cli import main
from modelcompat.judge import (DEFAULT_CUTOFFS, THRESHOLD, Cutoffs, Judge, JudgeScore, Signals, accuracy, by_kind,
                               combine, distinct_n, english_word_share, fit_cutoffs, read_labelled, rounded)

LABELLED = Path(__file__).parent / "data" / "fluency.jsonl"
KINDS = {"fluent", "repetition", "gibberish", "word_salad", "code", "other_language"}
ACCURACY_BAR = 0.95  # measured 118/119 with the stored cutoffs (the miss: one SQL query judged fluent)
KIND_BAR = 0.85
FLUENT = "The old man walked slowly to the market, where he bought bread, cheese and a small bunch of flowers."
SALAD = "lamp seventeen cautiously orbit ballot hungry across violin merchant twelve"


@pytest.fixture(scope="session")
def judge() -> Judge:
    return Judge.load()


@pytest.fixture(scope="session")
def labelled(judge):
    examples = read_labelled(LABELLED)
    return examples, judge.signals_many([e.text for e in examples])


def test_labelled_set_is_varied_and_consistent():
    examples = read_labelled(LABELLED)
    assert len(examples) >= 60
    assert {e.kind for e in examples} == KINDS
    assert all(e.label == (e.kind == "fluent") for e in examples)
    assert min(sum(e.kind == k for e in examples) for k in KINDS) >= 10
    assert len({e.text for e in examples}) == len(examples)


def test_accuracy_on_labelled_set(labelled):
    examples, signals = labelled
    labels = [e.label for e in examples]
    assert accuracy(signals, labels, DEFAULT_CUTOFFS) >= ACCURACY_BAR
    verdicts = [combine(s, DEFAULT_CUTOFFS) >= THRESHOLD for s in signals]
    for kind, (right, total) in by_kind(examples, verdicts).items():
        assert right / total >= KIND_BAR, kind


def test_stored_cutoffs_are_the_fit_on_the_labelled_set(labelled):
    examples, signals = labelled
    assert rounded(fit_cutoffs(signals, [e.label for e in examples])) == DEFAULT_CUTOFFS


@pytest.mark.parametrize("text", [
    FLUENT,
    "Sure! Here's a simple explanation: a rainbow forms when sunlight is bent, reflected and split by raindrops.",
    "The robot painted the sky. The robot painted the sea. Then it stepped back and looked at what it had made.",
])
def test_fluent_text_passes(judge, text):
    s = judge.score(text)
    assert s.english and THRESHOLD <= s.score <= 1
    assert s.perplexity < 100 and s.english_words == 1.0


@pytest.mark.parametrize("text", [
    "The robot painted painted painted painted painted painted painted painted painted painted painted painted",
    '[ en cal\ufffdall\ufffd\ufffd "__\ufffdmeric h >>>type\ufffd methodquence using sub adsc classesh >>>\n or class',
    SALAD,
    "Le robot a peint le ciel en bleu, puis il a regardé son tableau pendant longtemps.",
    "def paint(self, color):\n    self.canvas.fill(color)\n    return self.canvas",
])
def test_broken_text_fails(judge, text):
    s = judge.score(text)
    assert not s.english and 0 <= s.score < THRESHOLD


def test_score_is_a_frozen_record_with_its_signals(judge):
    s = judge.score(FLUENT)
    assert isinstance(s, JudgeScore) and s.judge == "SmolLM2-135M-Instruct@0.50"
    assert s.tokens > 10 and s.distinct2 == 1.0 and s.cutoffs == DEFAULT_CUTOFFS
    with pytest.raises(FrozenInstanceError):
        s.english = False
    assert json.loads(json.dumps(s.to_dict()))["perplexity"] == pytest.approx(s.perplexity)


def test_empty_text_is_not_fluent(judge):
    s = judge.score("")
    assert not s.english and s.score == 0 and math.isinf(s.perplexity) and s.to_dict()["perplexity"] is None


def test_harness_verdict_from_a_judge_score(judge):
    v = verify.decide(2, [5, 6, 7], None, judge.score(FLUENT))
    assert (v.result, v.basis, v.english, v.judge) == ("PASS", "judge", True, "SmolLM2-135M-Instruct@0.50")
    assert verify.decide(2, [5, 6, 7], None, judge.score(SALAD)).result == "FAIL"


def test_random_weight_judge_cannot_tell_fluent_from_salad(judge, fixture_dir):
    tiny = Judge.load(str(fixture_dir / "tiny-llama"))
    assert tiny.label == "tiny-llama@0.50"
    fluent, salad = tiny.score(FLUENT), tiny.score(SALAD)
    assert not fluent.english and fluent.perplexity > 100  # near its 1000-token vocabulary: it knows no English
    assert salad.perplexity / fluent.perplexity < 10
    assert judge.score(SALAD).perplexity / judge.score(FLUENT).perplexity > 100


def test_english_word_share():
    assert english_word_share("The robot, in 1969, painted 3 blue birds!") == 1.0
    assert english_word_share("La capitale de la France est Paris.") < DEFAULT_CUTOFFS.english_words
    assert english_word_share("x = foo(bar) + baz[2]") < DEFAULT_CUTOFFS.english_words
    assert english_word_share("") == 0.0


def test_distinct_n():
    assert distinct_n([1, 2, 3, 4]) == 1.0
    assert distinct_n([7] * 20) == pytest.approx(1 / 19)
    assert distinct_n([1, 2, 1, 2, 1, 2]) == pytest.approx(2 / 5)


def test_each_component_is_one_half_at_its_cutoff():
    c = Cutoffs(100.0, 0.75, 0.5)
    assert combine(Signals(100.0, 0.75, 0.5, 20), c) == pytest.approx(THRESHOLD)
    assert combine(Signals(10.0, 1.0, 1.0, 20), c) > 0.9
    assert combine(Signals(101.0, 1.0, 1.0, 20), c) < THRESHOLD
    assert combine(Signals(10.0, 0.74, 1.0, 20), c) < THRESHOLD


def test_fit_puts_each_cutoff_in_the_middle_of_the_gap():
    good = [Signals(p, 1.0, 1.0, 30) for p in (10.0, 20.0, 40.0)]
    salad, loop = Signals(1000.0, 1.0, 1.0, 30), Signals(5.0, 1.0, 0.1, 30)
    signals = good + [salad, loop, Signals(8.0, 0.2, 1.0, 30)]
    fitted = fit_cutoffs(signals, [True, True, True, False, False, False])
    assert fitted.perplexity == pytest.approx(200.0)  # geometric middle of 40 and 1000
    assert fitted.english_words == pytest.approx(0.6) and fitted.distinct2 == pytest.approx(0.55)
    assert accuracy(signals, [True] * 3 + [False] * 3, fitted) == 1.0


def test_cli_judge_json(capsys):
    assert main(["judge", FLUENT, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["english"] is True and data["judge"] == "SmolLM2-135M-Instruct@0.50"
    assert set(data) >= {"score", "perplexity", "english_words", "distinct2", "tokens", "cutoffs"}


def test_cli_judge_with_another_judge(capsys, fixture_dir):
    assert main(["judge", FLUENT, "--judge", str(fixture_dir / "tiny-llama")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("NOT FLUENT") and "tiny-llama@0.50" in out and "perplexity" in out


def test_cli_judge_that_is_not_a_model(capsys, tmp_path):
    assert main(["judge", FLUENT, "--judge", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "causal LM judge" in err
