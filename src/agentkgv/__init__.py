"""AgentKGV: verify knowledge-graph triples against a document corpus, with the evidence shown and a calibrated
confidence.

    from agentkgv import KGVerifier
    verdicts = KGVerifier().verify([("Douglas Adams", "place of birth", "Cambridge")])
"""

from agentkgv.api import KGVerifier, index_documents
from agentkgv.config import RunConfig
from agentkgv.core.verdict import EvidenceRef, Finding, Verdict
from agentkgv.data.records import LabeledTriple, Triple

__version__ = "0.1.0"
__all__ = ["EvidenceRef", "Finding", "KGVerifier", "LabeledTriple", "RunConfig", "Triple", "Verdict", "index_documents"]
