"""AgentKGV: verify knowledge-graph triples against a document corpus with a small agentic LLM."""

__version__ = "0.1.0"
