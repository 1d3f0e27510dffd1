"""The paper's T-REx benchmark: predicate regimes, splits and embedding-mined hard negatives.

Recipe (paper section 4.1 and appendix C): every positive (s, p, o) is paired with a negative
(s, p, o') where o' is the object of the same predicate most similar to o under the embedding model,
never one that makes (s, p, o') a known positive in any LAMA facts file. Each test split keeps the
highest similarity threshold from the grid that still leaves enough pairs, so positives and negatives
stay balanced and the negatives are as hard as the data allows.

One module of about 400 lines because the recipe is one pipeline read top to bottom (regimes, splits,
negatives, statistics), as the paper states it; its parts share the split and regime records.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from importlib import resources
from pathlib import Path

import numpy as np
from pydantic import model_validator

from agentkgv.data.aliases import ALIAS_FILE, surface_aliases, with_aliases, write_alias_table
from agentkgv.data.co_mention import ObjectNames, choose, find_co_mentions, sentences_by_subject
from agentkgv.data.errors import DataError
from agentkgv.data.factbench import DOCS_SPLIT, factbench_docs_examples
from agentkgv.data.hard_negatives import KnownPositives, Pair, choose_threshold, is_surface_variant, mine_hard_negatives, take_stratified
from agentkgv.data.jsonl import read_jsonl, write_jsonl
from agentkgv.data.lama import iter_evidence_facts, iter_known_triples, relations_with_evidence
from agentkgv.data.predicates import load_predicates
from agentkgv.data.records import Example, Fact, Passage, Triple
from agentkgv.data.settings import Settings, load_toml
from agentkgv.data.text import label_key
from agentkgv.encoders import DEFAULT_EMBEDDING_MODEL, embed


SPLITS = ("train", "test_long_tail", "test_unseen", DOCS_SPLIT)
TEST_SPLIT_REGIME = {"test_long_tail": "long_tail", "test_unseen": "unseen"}
# Country of citizenship: its object pool is the set of countries.
COUNTRY_PREDICATE = "P27"


class Regimes(Settings):
    head: list[str]
    long_tail: list[str]
    unseen: list[str]

    def of(self, predicate_id: str) -> str | None:
        for name in ("head", "long_tail", "unseen"):
            if predicate_id in getattr(self, name):
                return name
        return None


class BenchmarkConfig(Settings):
    seed: int = 13
    positives_per_test_split: int = 500
    long_tail_train_cap: int = 10
    similarity_grid: list[float]
    train_min_similarity: float = 0.3
    # At most this share of the training negatives are co-mention negatives (agentkgv.data.co_mention);
    # each replaces its positive's hard negative, so the split stays balanced. 0 turns them off.
    co_mention_share: float = 0.5
    regimes: Regimes
    embedding_model: str = DEFAULT_EMBEDDING_MODEL

    @model_validator(mode="after")
    def _regimes_disjoint(self) -> "BenchmarkConfig":
        names = [*self.regimes.head, *self.regimes.long_tail, *self.regimes.unseen]
        repeated = sorted({p for p in names if names.count(p) > 1})
        if repeated:
            raise ValueError(f"predicates in more than one regime: {repeated}")
        return self

    @classmethod
    def load(cls, path: Path | None = None) -> "BenchmarkConfig":
        if path is None:
            text = resources.files("agentkgv.configs").joinpath("benchmark.toml").read_text()
            path = Path("agentkgv/configs/benchmark.toml")
        else:
            text = None
        return load_toml(cls, path, text)


@dataclass(frozen=True, slots=True)
class SplitStats:
    split: str
    positives: int
    negatives: int
    threshold: float
    mean_similarity: float
    co_mention: int = 0


def triple_key(triple: Triple) -> tuple[str, str, str]:
    return (label_key(triple.subject), triple.predicate_id or label_key(triple.predicate), label_key(triple.object))


def _example_id(split: str, triple: Triple) -> str:
    digest = hashlib.sha1("\t".join(triple_key(triple)).encode()).hexdigest()[:10]
    return f"{split}:{triple.predicate_id}:{digest}"


def pairs_to_examples(pairs: list[Pair], split: str, regime_of: Callable[[str], str | None],
                      seen: set[tuple[str, str, str]]) -> list[Example]:
    """Both triples of every pair whose triples are new to the benchmark; `seen` is updated in place."""
    examples = []
    for pair in pairs:
        positive = pair.positive.triple
        if pair.negative_object is None:
            continue
        obj_id, obj_label = pair.negative_object
        negative = Triple(positive.subject, positive.predicate, obj_label, positive.predicate_id,
                          positive.subject_id, obj_id)
        if triple_key(positive) in seen or triple_key(negative) in seen:
            continue
        seen.update((triple_key(positive), triple_key(negative)))
        gold = tuple(Passage.make_id(pair.positive.source, s) for s in pair.positive.evidences)
        regime = regime_of(positive.predicate_id or "") or "other"
        pos_id = _example_id(split, positive)
        examples.append(Example(pos_id, positive, True, split, regime, gold))
        examples.append(Example(_example_id(split, negative), negative, False, split, regime, gold,
                                negative_of=pos_id, similarity=round(pair.similarity, 4)))
    return examples


def build_benchmark(data_dir: Path, out_dir: Path, config: BenchmarkConfig,
                    progress: Callable[[str], None] = lambda message: None) -> list[SplitStats]:
    """Write train/test_long_tail/test_unseen JSONL and the statistics table into `out_dir`."""
    available = set(relations_with_evidence(data_dir))
    configured = [*config.regimes.head, *config.regimes.long_tail, *config.regimes.unseen]
    missing = sorted(set(configured) - available)
    if missing:
        raise DataError(data_dir, f"regime predicates without an evidence file: {missing}")
    predicates = load_predicates(data_dir)
    labels = {pid: info.label for pid, info in predicates.items()}

    progress("reading known positives from every LAMA facts file")
    known = KnownPositives(iter_known_triples(data_dir))

    progress("reading evidence facts")
    facts: dict[str, list[Fact]] = {}
    for pid in configured:
        unique: dict[tuple[str, str, str], Fact] = {}
        for fact in iter_evidence_facts(data_dir, pid, labels.get(pid, pid)):
            if fact.evidences:
                unique.setdefault(triple_key(fact.triple), fact)
        facts[pid] = list(unique.values())

    progress(f"embedding objects with {config.embedding_model}")
    pools = {pid: known.pool(pid) for pid in configured}
    all_labels = sorted({label for pool in pools.values() for _, label in pool}
                        | {f.triple.object for fs in facts.values() for f in fs})
    vectors = dict(zip(all_labels, embed(all_labels, config.embedding_model, show_progress=False)))

    progress("mining hard negatives")
    pairs: dict[str, list[Pair]] = {}
    for pid in configured:
        pool_vectors = np.stack([vectors[label] for _, label in pools[pid]])
        object_vectors = np.stack([vectors[f.triple.object] for f in facts[pid]])
        pairs[pid] = mine_hard_negatives(facts[pid], pools[pid], pool_vectors, object_vectors, known)

    rng = random.Random(config.seed)
    seen: set[tuple[str, str, str]] = set()
    regime_of = config.regimes.of
    splits: dict[str, list[Example]] = {}
    stats: list[SplitStats] = []

    train_pairs: list[Pair] = []
    for pid in config.regimes.head:
        train_pairs += [p for p in pairs[pid] if p.similarity >= config.train_min_similarity]
    held_for_train: set[int] = set()
    for pid in config.regimes.long_tail:
        eligible = [p for p in pairs[pid] if p.similarity >= config.train_min_similarity]
        chosen = rng.sample(eligible, min(len(eligible), config.long_tail_train_cap // 2))
        train_pairs += chosen
        held_for_train.update(id(p) for p in chosen)
    splits["train"] = pairs_to_examples(train_pairs, "train", regime_of, seen)

    for split, regime in TEST_SPLIT_REGIME.items():
        candidates = [p for pid in getattr(config.regimes, regime) for p in pairs[pid]
                      if id(p) not in held_for_train and p.negative_object is not None]
        threshold = choose_threshold(candidates, config.similarity_grid, config.positives_per_test_split)
        passing = [p for p in candidates if p.similarity >= threshold]
        chosen = take_stratified(passing, config.positives_per_test_split, rng)
        splits[split] = pairs_to_examples(chosen, split, regime_of, seen)
        stats.append(_stats(split, splits[split], threshold))

    # After the test splits are drawn, so they are the same with or without co-mention negatives, and
    # `seen` holds every test triple, which a co-mention negative must never be.
    progress("mining co-mention negatives")
    all_facts = [f for fs in facts.values() for f in fs]
    splits["train"] = with_co_mention_negatives(
        splits["train"], {triple_key(p.positive.triple): p.positive for p in train_pairs}, all_facts, known,
        pools, predicates, config, seen)
    stats.insert(0, _stats("train", splits["train"], config.train_min_similarity))

    splits[DOCS_SPLIT] = factbench_docs_examples(data_dir)
    # Only the training facts' sentences teach names; every split's triples then carry them.
    in_train = {triple_key(e.triple) for e in splits["train"] if e.label}
    aliases = surface_aliases(p.positive for p in train_pairs if triple_key(p.positive.triple) in in_train)
    for split, examples in splits.items():
        examples[:] = [replace(e, triple=with_aliases(e.triple, aliases)) for e in examples]
        random.Random(f"{config.seed}:{split}").shuffle(examples)
        write_jsonl(out_dir / f"{split}.jsonl", (e.to_json() for e in examples))
    write_jsonl(out_dir / "stats.jsonl", (asdict(s) for s in stats))
    write_alias_table(out_dir / ALIAS_FILE, aliases)
    return stats


def with_co_mention_negatives(train: list[Example], positives: dict[tuple[str, str, str], Fact], facts: list[Fact],
                              known: KnownPositives, pools: dict[str, list[tuple[str, str]]],
                              predicates: dict, config: BenchmarkConfig, seen: set[tuple[str, str, str]]) -> list[Example]:
    """The train split with up to `co_mention_share` of its hard negatives replaced by co-mention negatives
    of the same positives (single-valued predicates only; see agentkgv.data.co_mention)."""
    budget = int(config.co_mention_share * sum(not e.label for e in train))
    if budget <= 0:
        return train
    rng = random.Random(f"{config.seed}:co_mention")
    sentences = sentences_by_subject(facts)
    names = {pid: ObjectNames(pool) for pid, pool in pools.items()
             if pid in predicates and predicates[pid].single_valued}
    # A country named next to a subject whose true value is a city is usually that city's country
    # (died in Derby, England): true at a coarser grain, so never a co-mention negative for a non-country.
    countries = set(known.pools.get(COUNTRY_PREDICATE, {}))
    replacements: dict[str, Example] = {}  # positive id -> its co-mention negative
    for example in sorted((e for e in train if e.label), key=lambda e: e.id):
        pid = example.triple.predicate_id or ""
        fact = positives.get(triple_key(example.triple))
        if pid not in names or fact is None:
            continue
        triple = example.triple
        excluded = known.objects_of(pid, triple) | {label_key(triple.object)} | ({triple.object_id} if triple.object_id else set())
        if label_key(triple.object) not in countries:
            excluded |= countries
        stated = {key: predicates[other].label if other in predicates else other
                  for other in known.pools if other != pid for key in known.objects_of(other, triple)}
        candidates = [c for c in find_co_mentions(fact, sentences.get(label_key(triple.subject), []), names[pid], excluded,
                                                  stated, is_surface_variant)
                      if (label_key(triple.subject), pid, label_key(c.object_label)) not in seen]
        if not candidates:
            continue
        chosen = choose(candidates, rng)
        negative = Triple(triple.subject, triple.predicate, chosen.object_label, pid, triple.subject_id,
                          chosen.object_id)
        seen.add(triple_key(negative))
        replacements[example.id] = Example(
            _example_id("train", negative), negative, False, "train", example.regime, chosen.passage_ids,
            negative_of=example.id, extra={"negative": "co_mention", "stated_relation": chosen.stated_relation})
    # Spread over the split rather than the first ids in order, when there are more than the budget.
    keep = set(rng.sample(sorted(replacements), min(budget, len(replacements))))
    return [replacements[e.negative_of] if not e.label and e.negative_of in keep else e for e in train]


def _stats(split: str, examples: list[Example], threshold: float) -> SplitStats:
    negatives = [e for e in examples if not e.label]
    similarities = [e.similarity for e in negatives if e.similarity is not None]
    return SplitStats(split, sum(e.label for e in examples), len(negatives), threshold,
                      round(float(np.mean(similarities)), 3) if similarities else float("nan"),
                      sum(e.extra.get("negative") == "co_mention" for e in negatives))


def load_split(benchmark_dir: Path, split: str) -> list[Example]:
    path = benchmark_dir / f"{split}.jsonl"
    if not path.exists():
        raise DataError(path, "benchmark split not built yet: run `agentkgv build-benchmark`")
    return [Example.from_json(record) for _, record in read_jsonl(path)]


def load_stats(benchmark_dir: Path) -> list[SplitStats]:
    return [SplitStats(**record) for _, record in read_jsonl(benchmark_dir / "stats.jsonl")]
