"""AgentKGV: verify knowledge-graph triples against a document corpus, with the evidence shown and a calibrated
confidence.

    from agentkgv import KGVerifier
    verdicts = KGVerifier().verify([("Douglas Adams", "place of birth", "Cambridge")])

The names below load on first use, so importing one of the package's modules does not load the whole verifier.
"""

from __future__ import annotations

import importlib
import os

__version__ = "0.1.0"

# ONNX Runtime, which runs the readers, sends usage telemetry to Microsoft and writes a device id under the
# user's ~/.cache unless told not to; a verifier of a user's own documents sends nothing anywhere. Set before any
# module imports onnxruntime; a user who sets it otherwise keeps their choice.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

_WHERE = {"KGVerifier": "agentkgv.api", "index_documents": "agentkgv.api", "profile_graph": "agentkgv.api",
          "GraphSettings": "agentkgv.graph.checker", "GraphProfile": "agentkgv.graph.profile",
          "RunConfig": "agentkgv.config",
          "Verdict": "agentkgv.core.verdict", "EvidenceRef": "agentkgv.core.verdict", "Finding": "agentkgv.core.verdict",
          "Triple": "agentkgv.data.records", "LabeledTriple": "agentkgv.data.records"}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module 'agentkgv' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
