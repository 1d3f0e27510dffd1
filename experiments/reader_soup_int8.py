"""Two ways to a second reader at no extra cost, measured on pairs no reader trained on (BENCHMARKS.md, *The
evidence reader*): the shipped and the gloss reader's weights averaged into one (a "model soup": both were
fine-tuned from the same MiniLM), and the shipped reader in int8 (PyTorch dynamic quantization of its linear
layers), which would pay for a second reader's passes.

The pairs: a fixed draw from the pairs past the first 32,000 of `agentkgv train-reader`'s shuffle (the
readers trained on the first 32,000), built from training-split triples and the offline corpora. They share
triples and passages with the trained-on pairs, so the AUCs are optimistic; the readers compare fairly.

python experiments/reader_soup_int8.py [--pairs 1500] [--default reader-corpora] [--gloss reader-gloss]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

TRAIN = Path(".cache/train")


def main() -> None:
    import numpy as np
    import torch
    from safetensors.torch import load_file
    from sklearn.metrics import roc_auc_score

    from agentkgv.reader_agent.reader import CrossEncoderReader, frozen
    from agentkgv.reader_agent.reader_folder import WEIGHTS_FILE, ReaderFolder
    from agentkgv.data.records import Triple

    torch.set_num_threads(2)  # the project's CPU; pairs/s compare fp32 and int8 only on an otherwise idle machine

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1500)
    parser.add_argument("--default", default="reader-corpora")
    parser.add_argument("--gloss", default="reader-gloss")
    args = parser.parse_args()
    lines = (TRAIN / args.default / "pairs.jsonl").read_text().splitlines()[32000:]
    random.Random(0).shuffle(lines)
    records = [json.loads(line) for line in lines[:args.pairs]]
    pairs = [(Triple(**r["triple"]), r["text"], r["title"]) for r in records]
    gold = np.array([r["label"] for r in records]) > 0.5

    def measure(name: str, reader: CrossEncoderReader) -> np.ndarray:
        reader.score(pairs[:32])  # warm-up
        started = time.perf_counter()
        scores = reader.score(pairs)
        rate = len(pairs) / (time.perf_counter() - started)
        print(f"{name:34s} AUC {roc_auc_score(gold, scores):.4f}  {rate:5.0f} pairs/s", flush=True)
        return scores

    # PyTorch runs them: the soup and int8 below change the torch model, which ONNX Runtime would not read.
    default = CrossEncoderReader(ReaderFolder.open(TRAIN / args.default / "reader"), runtime="torch")
    gloss = CrossEncoderReader(ReaderFolder.open(TRAIN / args.gloss / "reader"), runtime="torch")
    fp32 = measure("default reader", default)
    measure("gloss reader, glosses in claims", gloss)
    glosses, gloss.glosses = gloss.glosses, {}
    measure("gloss reader, bare claims", gloss)
    a, b = (load_file(str(TRAIN / run / "reader" / WEIGHTS_FILE)) for run in (args.default, args.gloss))
    missing, unexpected = gloss.model.model.load_state_dict({k: (a[k].float() + b[k].float()) / 2 for k in a}, strict=False)
    assert not unexpected and all(frozen(k) for k in missing), (missing, unexpected)
    measure("soup of the two, bare claims", gloss)
    gloss.glosses = glosses
    measure("soup of the two, glosses in claims", gloss)
    torch.ao.quantization.quantize_dynamic(default.model.model, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)
    int8 = measure("default reader, int8", default)
    print(f"int8 against fp32: correlation {np.corrcoef(fp32, int8)[0, 1]:.4f}, "
          f"same side of 0 on {np.mean((fp32 > 0) == (int8 > 0)):.1%} of the pairs")


if __name__ == "__main__":
    main()
