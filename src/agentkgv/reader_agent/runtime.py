"""Where a reader's network runs when it scores: PyTorch, or ONNX Runtime (the default on a CPU).

The reader is a 6-layer MiniLM cross-encoder, and reading is nearly all of the reader agent's time (93% of it
in a profile of 128 triples: the linear layers). ONNX Runtime runs the same network in fp32 about twice as fast
on two cores, with scores within 1e-5 of PyTorch's (BENCHMARKS.md, *Not stated*): the calibration, fitted on
PyTorch's scores, holds as it is. The graph is exported from the loaded weights on first use (seconds) into
the cache folder, keyed by the weights' hash, so a retrained or tuned reader gets its own.

Tokenizing stays with sentence-transformers (`CrossEncoder.preprocess`), so both runtimes read the same
tokens. A reader trained in bf16 on a CPU with native bf16 keeps PyTorch: its calibration was fitted on bf16
scores, which fp32 does not reproduce.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np

Runtime = Literal["onnxruntime", "torch"]
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_OPSET = 17


class OnnxReaderNetwork:
    """A sentence-transformers CrossEncoder's network as an ONNX Runtime session; `predict` as the
    CrossEncoder's, for one-logit readers."""

    def __init__(self, cross_encoder, weights: Path, cache: Path):
        import onnxruntime
        import torch

        self.cross_encoder = cross_encoder
        digest = hashlib.sha256(weights.read_bytes()).hexdigest()[:16]
        path = cache / "readers-onnx" / f"{digest}-opset{_OPSET}.onnx"
        if not path.exists():
            _export(cross_encoder, path)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        options.log_severity_level = 3  # its notes on graph rewrites are not the user's business
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]

    def predict(self, inputs: Sequence[tuple[str, str]], batch_size: int) -> np.ndarray:
        # Longest first, as sentence-transformers batches: pairs of a length share a batch and little padding.
        order = np.argsort([-len(claim) - len(passage) for claim, passage in inputs], kind="stable")
        scores = np.zeros(len(inputs), dtype=np.float32)
        for start in range(0, len(inputs), batch_size):
            rows = order[start:start + batch_size]
            features = self.cross_encoder.preprocess([inputs[row] for row in rows])
            feed = {name: features[name].numpy() for name in self.inputs}
            scores[rows] = self.session.run(None, feed)[0].reshape(-1)
        return scores


def _export(cross_encoder, path: Path) -> None:
    """The network's graph with dynamic batch and sequence axes; written to a temporary file and renamed, so
    two processes exporting at once never leave a torn file."""
    import torch

    class Logits(torch.nn.Module):  # the plain forward ONNX traces: token tensors in, one logit per pair out
        def __init__(self, network):
            super().__init__()
            self.network = network

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.network(input_ids=input_ids, attention_mask=attention_mask,
                                token_type_ids=token_type_ids).logits

    network = cross_encoder.model.eval()
    example = cross_encoder.preprocess([("a claim", "a passage")])
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on shapes it fixed: the axes above stay dynamic
        torch.onnx.export(Logits(network), tuple(example[name] for name in _INPUTS), str(partial),
                          input_names=list(_INPUTS), output_names=["logits"], opset_version=_OPSET, dynamo=False,
                          dynamic_axes={**{name: {0: "pairs", 1: "tokens"} for name in _INPUTS},
                                        "logits": {0: "pairs"}})
    os.replace(partial, path)


def onnxruntime_available() -> bool:
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True
