"""Verifiers: the AgentKGV agent and the baselines, all behind one `Verifier` interface."""
