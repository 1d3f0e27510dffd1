"""Build the verifier a run configuration names."""

from __future__ import annotations

from agentkgv.agent.agentkgv import AgentKGV
from agentkgv.agent.base import Verifier
from agentkgv.agent.baselines import DirectLLM, SingleTurnRAG
from agentkgv.agent.ircot import IRCoT
from agentkgv.agent.calibration import Calibration
from agentkgv.agent.lexical import LexicalVerifier
from agentkgv.agent.reader import CrossEncoderReader, read_relations, reader_folder, support_fingerprint
from agentkgv.agent.reading import Judge, RareRelations, ReadingAgent, ReadingConfig
from agentkgv.agent.relation_facts import RelationFacts
from agentkgv.agent.policy import Policy
from agentkgv.agent.stopping import LearnedStop
from agentkgv.agent.run_config import RunConfig
from agentkgv.agent.summarizer import ExtractiveSummarizer, LLMSummarizer, Summarizer
from agentkgv.llm.base import LLM, GenerationConfig
from agentkgv.llm.factory import build_llm
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.guard import AddressesReader, DistrustedSource, WithholdingRetriever


def build_summarizer(config: RunConfig, llm: LLM) -> Summarizer:
    if config.summarizer == "extractive":
        return ExtractiveSummarizer()
    return LLMSummarizer(build_llm(config.summarizer_llm) if config.summarizer_llm else llm)


def rare_relations(config: ReadingConfig) -> RareRelations | None:
    """The judge of the relations `config`'s reader learned from fewer than `rare_below` facts, loaded; None
    when that reader judges every relation."""
    if not config.rare_below:
        return None
    folder = config.rare_folder()
    stop = None
    if config.rare_stop_policy is not None:
        stop = LearnedStop.read(config.rare_stop_policy).check(config.rare_stop_policy, support_fingerprint(folder),
                                                                config.max_searches)
    return RareRelations(Judge(CrossEncoderReader(folder, runtime=config.runtime), Calibration.read(folder), stop),
                         read_relations(reader_folder(config.reader)), config.rare_below)


def build_verifier(config: RunConfig, retriever: Retriever, paraphrases: dict[str, list[str]],
                   llm: LLM | None = None, policy: Policy | None = None, relations: RelationFacts | None = None) -> Verifier:
    """The method's verifier; `policy` chooses the AgentKGV agent's actions in place of its LLM (a teacher).
    `relations`: what the facts files say of each relation (the reader agent's; agent/relation_facts.py)."""
    a = config.agent
    distrusted = DistrustedSource(config.retriever.distrust)
    # The reader agent reads a distrusted source and lets it decide nothing (its support sends a triple to
    # review); a method that cannot keep a passage from deciding never sees one.
    rules = ([AddressesReader()] if config.evidence_guard else []) + (
        [distrusted] if distrusted.marks and not config.uses_reader else [])
    if rules:
        retriever = WithholdingRetriever(retriever, rules)
    if policy is not None:
        return AgentKGV(None, retriever, build_summarizer(config, None), paraphrases, a, policy)
    if config.method == "lexical":
        return LexicalVerifier(retriever, a.top_k)
    if config.uses_reader:
        folder = reader_folder(config.reading.reader)
        reader = CrossEncoderReader(folder, runtime=config.reading.runtime)
        return ReadingAgent(retriever, reader, Calibration.read(folder), paraphrases, config.reading,
                            rare_relations(config.reading), relations, distrusted)
    llm = llm or build_llm(config.llm)
    generation = GenerationConfig(max_new_tokens=a.max_new_tokens, temperature=a.temperature, seed=a.seed)
    if config.method == "direct":
        return DirectLLM(llm, generation, a.reasoning_chars)
    if config.method == "single_rag":
        return SingleTurnRAG(llm, retriever, generation, a.top_k, a.max_passage_words, a.reasoning_chars)
    if config.method == "ircot":
        return IRCoT(llm, retriever, generation, a.top_k, max_sentences=a.max_turns - 1,
                     reasoning_chars=a.reasoning_chars)
    return AgentKGV(llm, retriever, build_summarizer(config, llm), paraphrases, a)
