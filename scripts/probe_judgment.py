"""How much of the verdict can be read off the model's hidden states? A linear probe, for issue 11.

Takes the judgment pairs of an SFT dataset whose state shows a passage marking both subject and object (the
only states where the grounding rule lets "true" through), a balanced draw of `per_class` true and false,
runs the model (base plus `--adapter`) over each state and the teacher's answer up to the decision (through
"Passage N"; the next word is " states" for true, " names", " gives" or " links" for false), and reports the
model's own decision there (AUC of its probability of " states" among those four words) next to a
logistic-regression probe, scored by 5-fold cross-validated AUC, on every third layer's hidden state at three
places: the decision token, the prompt's last token, and the mean over the prompt. Layer 0 (token
embeddings, mean over the prompt) is the bag-of-words baseline.

With `--run`, the probe fitted on all of those training states also scores the judgment states an eval run
logged (its `<label>.<split>.jsonl` files) where a shown passage marks both, taking the decision after the
first such passage's number, next to the AUC of the model's own P(true) on the same states (the verdict it
logged, with its confidence).

    python scripts/probe_judgment.py .cache/train/distill-v2/sft.jsonl --adapter .cache/train/distill/model/adapter \
        --run .cache/runs/i11-view
    python scripts/probe_judgment.py .cache/train/distill-v3/sft.jsonl --adapter agentkgv-smollm2 --held-out 0.05 --no-probes

A probe is a lower bound on what training the top layers could reach, and a cheap one: forward passes only.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import torch
import typer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from agentkgv.llm.transformers_backend import TransformersLLM
from agentkgv.train.sft import SFTSettings, held_out_triples, pair_triple

PASSAGE = re.compile(r'<passage id="\d+"[^>]*>(.*?)</passage>', re.S)
DECISION = '{"reasoning": "Passage '
# The words the privileged teacher writes after "Passage N": the first for a true verdict, the rest for false.
DECISION_WORDS = (" states", " names", " gives", " links")


def both_marked_judgments(pairs: Path, per_class: int, seed: int, held_out: float = 0.0) -> list[tuple[dict, int]]:
    """A seeded draw of (SFT pair, 1 if its verdict is true) among the both-marked judgment states, at most
    `per_class` of each verdict; with `held_out`, just the pairs of the triples `agentkgv sft` holds out with
    that eval_fraction (and the default seed)."""
    rows = [json.loads(line) for line in pairs.open() if '"judgment"' in line]
    if held_out:
        # Every kept trajectory ends in one judgment, so these rows name the same triples as all the pairs
        # `agentkgv sft` draws its held-out slice from.
        only = held_out_triples([row["id"] for row in rows], held_out, SFTSettings().seed)
        rows = [row for row in rows if pair_triple(row["id"]) in only]
    chosen: dict[int, list[tuple[dict, int]]] = {0: [], 1: []}
    for row in rows:
        answer = row["completion"][0]["content"]
        passages = PASSAGE.findall(row["prompt"][-1]["content"])
        if answer.startswith(DECISION) and any("[S:" in p and "[O:" in p for p in passages):
            label = int(json.loads(answer)["verdict"] == "true")
            chosen[label].append((row, label))
    rng = random.Random(seed)
    rng.shuffle(chosen[1])
    rng.shuffle(chosen[0])
    draw = chosen[1][:per_class] + chosen[0][:per_class]
    rng.shuffle(draw)
    return draw


def logged_judgments(run: Path) -> dict[str, list[tuple[list[dict], str, int, float]]]:
    """Per split: (judgment messages, "Passage N " of the first both-marked passage, gold, the model's P(true))
    of the logged triples whose last state shows a passage marking both."""
    found: dict[str, list] = {}
    for log in sorted(run.glob("*.jsonl")):
        split = log.name.rsplit(".", 2)[-2]
        for line in log.open():
            record = json.loads(line)
            messages = record["trajectory"][-1]["messages"]
            passages = PASSAGE.findall(messages[-1]["content"])
            marked = [n for n, p in enumerate(passages, 1) if "[S:" in p and "[O:" in p]
            if marked and record["verdict"] is not None:
                p_true = record["confidence"] if record["verdict"] else 1 - record["confidence"]
                found.setdefault(split, []).append((messages, f"{DECISION}{marked[0]}", int(record["gold"]), p_true))
    return found


def features(llm: TransformersLLM, messages: list[dict], upto: str) -> tuple[dict[str, np.ndarray], float]:
    """(layers+1, hidden) at the decision token, the prompt's last token and the prompt mean; and the model's
    probability of the true word among the decision words there."""
    tokenizer = llm.tokenizer
    prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    ids = tokenizer(prompt + upto, return_tensors="pt", add_special_tokens=False).input_ids
    n_prompt = len(tokenizer(prompt, add_special_tokens=False).input_ids)
    words = [tokenizer(w, add_special_tokens=False).input_ids[0] for w in DECISION_WORDS]
    with torch.no_grad():
        out = llm.model(ids, output_hidden_states=True)
    states = out.hidden_states
    p_true = torch.softmax(out.logits[0, -1, words], -1)[0].item()
    return {"decision": np.stack([h[0, -1].numpy() for h in states]),
            "prompt_end": np.stack([h[0, n_prompt - 1].numpy() for h in states]),
            "prompt_mean": np.stack([h[0, :n_prompt].mean(0).numpy() for h in states])}, p_true


def probe(c: float):
    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000))


def probe_auc(x: np.ndarray, y: np.ndarray, c: float, seed: int) -> float:
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    return roc_auc_score(y, cross_val_predict(probe(c), x, y, cv=folds, method="predict_proba")[:, 1])


def main(pairs: Path, adapter: Annotated[Optional[Path], typer.Option()] = None,
         run: Annotated[Optional[Path], typer.Option()] = None, per_class: int = 350, c: float = 0.01,
         threads: int = 2, seed: int = 0,
         held_out: Annotated[float, typer.Option(help="Only the triples `agentkgv sft` held out with this "
                                                       "eval_fraction (and the default seed).")] = 0.0,
         probes: Annotated[bool, typer.Option(help="Fit the hidden-state probes.")] = True) -> None:
    torch.set_num_threads(threads)
    draw = both_marked_judgments(pairs, per_class, seed, held_out)
    llm = TransformersLLM.load(adapter=adapter, dtype="float32")
    rows, own = [], []
    for i, (row, _) in enumerate(draw):
        # The teacher's answer through "Passage N" (N is one digit: at most 5 passages are shown).
        found, p_true = features(llm, row["prompt"], row["completion"][0]["content"][:len(DECISION) + 1])
        rows.append(found)
        own.append(p_true)
        if i % 50 == 0:
            print(f"{i}/{len(draw)} states", flush=True)
    y = np.array([label for _, label in draw])
    print(f"{len(y)} both-marked judgment states, {y.mean():.0%} true; the model's own decision AUC "
          f"{roc_auc_score(y, own):.2f}, accuracy of its greedy choice "
          f"{np.mean((np.array(own) >= 0.5) == y):.2f}")
    if not probes:
        return
    print("probe AUC by layer (5-fold CV):")
    layers = range(0, rows[0]["decision"].shape[0], 3)
    for place in rows[0]:
        x = np.stack([r[place] for r in rows])
        print(f"{place:>12} " + " ".join(f"L{layer}:{probe_auc(x[:, layer], y, c, seed):.2f}" for layer in layers))
    if run is None:
        return
    x_train = np.stack([r["decision"] for r in rows])
    fitted = {layer: probe(c).fit(x_train[:, layer], y) for layer in layers}
    for split, states in logged_judgments(run).items():
        gold = np.array([s[2] for s in states])
        x = np.stack([features(llm, messages, upto)[0]["decision"] for messages, upto, _, _ in states])
        own = np.array([s[3] for s in states])
        scores = [f"L{layer}:{_auc_accuracy(gold, fitted[layer].predict_proba(x[:, layer])[:, 1])}"
                  for layer in layers]
        print(f"{split}: {len(gold)} states, {gold.mean():.0%} true; AUC/accuracy of the model's own verdict "
              f"{_auc_accuracy(gold, own)}; of the probe at the decision token: " + " ".join(scores))


def _auc_accuracy(gold: np.ndarray, p_true: np.ndarray) -> str:
    """'AUC/accuracy' at 0.5 (the probe is fitted on balanced classes); AUC is '-' where one class is absent."""
    auc = f"{roc_auc_score(gold, p_true):.2f}" if 0 < gold.mean() < 1 else "-"
    return f"{auc}/{((p_true >= 0.5) == gold).mean():.2f}"


if __name__ == "__main__":
    typer.run(main)
