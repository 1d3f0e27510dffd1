"""The evidence reader's training loops: its pairs, training, calibration on held-out training triples, and its
stop policy. Each builds what it needs from the workspace (commands/build.py) and writes under
<cache>/train/<run name>."""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from pathlib import Path

from agentkgv.commands.build import EVAL_SPLITS, SILENT, Hooks, ensure_benchmark, paraphrases, retriever_for
from agentkgv.data.benchmark import BenchmarkConfig, load_split, triple_key
from agentkgv.data.predicates import gloss_table, load_predicates
from agentkgv.data.records import Example, LabeledTriple, Triple
from agentkgv.data.text import label_key
from agentkgv.eval.subsets import balanced_subset
from agentkgv.paths import Workspace
from agentkgv.reader_agent.reader_folder import ReaderFolder, save_relations, shipped_reader_dir
from agentkgv.retrieval.factory import RetrieverConfig


def reader_pairs(ws: Workspace, run_dir: Path, settings, hooks: Hooks = SILENT) -> list:
    """The reader's training pairs (the training split less its held-out subjects, then the corpora),
    built once into `run_dir` and rebuilt when the settings that shape them change."""
    import random

    from agentkgv.data.jsonl import read_jsonl, write_jsonl
    from agentkgv.train.reader_corpora import fewrel_pairs, redocred_pairs, tekgen_pairs
    from agentkgv.train.reader_data import ReaderPair, build_reader_pairs, check_reader_pairs, held_out, held_out_name
    from agentkgv.reader_agent.relation_cues import cue_stems
    from agentkgv.train.paragraphs import paragraph_pairs
    from agentkgv.train.web_forms import Fact, relation_keys, web_form_pairs

    path, pinned = run_dir / "pairs.jsonl", run_dir / "pairs.settings.json"
    shape = settings.pair_settings()
    if path.exists() and pinned.exists() and json.loads(pinned.read_text()) == shape:
        pairs = [ReaderPair.from_json(record) for _, record in read_jsonl(path)]
        check_reader_pairs(pairs, *reader_forbidden(ws))  # the benchmark may have been rebuilt since
        return pairs
    ensure_benchmark(ws, hooks)
    retriever = retriever_for(ws, RetrieverConfig(), hooks)
    forbidden = reader_forbidden(ws)
    # The training split shares a few facts with FactBench (Nasser died in Cairo): they are left out.
    train = [e for e in load_split(ws.benchmark, "train") if not held_out(e, settings.held_out_share)
             and (label_key(e.triple.subject), label_key(e.triple.object)) not in forbidden[1]]
    with hooks.bar("building reader pairs", len(train)) as advance:
        pairs = build_reader_pairs(train, retriever, retriever.store.get, settings.seed, settings.split_swap_share,
                                   compatible_swap_share=settings.compatible_swap_share, progress=advance)
    excluded, labels = benchmark_relations_excluded(), relation_labels(ws)
    rng = random.Random(settings.seed)
    corpora = (redocred_pairs(ws.data, labels, excluded, rng, settings.redocred_per_relation, settings.corpus_swap_share,
                              compatible_swap_share=settings.compatible_swap_share)
               + fewrel_pairs(ws.data, labels, excluded, rng, settings.fewrel_per_relation, settings.corpus_swap_share))
    if settings.tekgen_per_relation:
        corpora += tekgen_pairs(ws.data, labels, excluded, rng, settings.tekgen_per_relation, settings.corpus_swap_share,
                                settings.held_out_share)[0]
    # The corpora name FactBench's and the test splits' entities too: a pair about an entity pair of either
    # (by any of its names, in either order) is dropped, as is one about a held-out subject.
    taken = taken_entity_pairs(ws, forbidden)
    pairs += [p for p in corpora if not names_a_pair_of(p.triple, taken)
              and not any(held_out_name(a, settings.held_out_share) for a in p.triple.subject_names)]
    facts = [Fact(p.triple, p.text, p.title) for p in pairs if p.kind == "evidence" and p.label > 0.5]
    predicates = load_predicates(ws.data)
    if settings.web_form_share:
        pairs += web_form_pairs(facts, relation_keys(predicates), rng, settings.web_form_share,
                                frozenset(pid for pid, info in predicates.items() if info.single_valued))
    if settings.paragraph_share:
        pairs += paragraph_pairs(facts, rng, settings.paragraph_share,
                                 {pid: cue_stems(info) for pid, info in predicates.items()})
    rng.shuffle(pairs)
    check_reader_pairs(pairs, *forbidden)
    run_dir.mkdir(parents=True, exist_ok=True)
    write_jsonl(path, (p.to_json() for p in pairs))
    pinned.write_text(json.dumps(shape))
    return pairs


def benchmark_relations_excluded() -> set[str]:
    """What the corpora must not teach, lest they undo the benchmark's regimes: no unseen relation (nor its
    inverse), and no long-tail one, which training sees only `long_tail_train_cap` times."""
    from agentkgv.train.reader_data import INVERSES

    regimes = BenchmarkConfig.load().regimes
    return {p for r in (*regimes.unseen, *regimes.long_tail) for p in (r, INVERSES.get(r)) if p}


def relation_labels(ws: Workspace) -> dict[str, str]:
    return {pid: info.label for pid, info in load_predicates(ws.data).items()}


def taken_entity_pairs(ws: Workspace, forbidden: tuple[set, set, set[str]]) -> set[tuple[str, str]]:
    """The (subject, object) pairs of the test splits and FactBench, by label key."""
    return forbidden[1] | {(label_key(e.triple.subject), label_key(e.triple.object)) for split in EVAL_SPLITS
                           for e in load_split(ws.benchmark, split)}


def names_a_pair_of(triple: Triple, taken: set[tuple[str, str]]) -> bool:
    """Whether the triple's entities, by any of their names and in either order, form a pair of `taken`."""
    names = [(label_key(a), label_key(b)) for a in triple.subject_names for b in triple.object_names]
    return any(n in taken or n[::-1] in taken for n in names)


def relations_learned(folders: list[Path]) -> dict[str, int]:
    """The facts each relation was learned from by the readers in `folders` (their relations.json), the most
    any of them learned: a relation is rare only if it is rare to every one."""
    learned: dict[str, int] = {}
    for folder in folders:
        for name, count in ReaderFolder.open(folder).learned().items():
            learned[name] = max(learned.get(name, 0), count)
    return learned


def rare_relation_items(ws: Workspace, learned: dict[str, int], per_relation: int) -> list[tuple[LabeledTriple, str]]:
    """(triple, kind) for TekGen triples of the relations learned from fewer than `rare_below` facts (`learned`:
    a reader's relations.json; train/reader_corpora.rare_relation_pairs), none about a test-split or
    FactBench entity pair: the relations a reader of rare relations judges, each negative with its kind. A
    fixed draw; an id names its triple, so readings cached by id stay with their triple whatever is drawn."""
    import hashlib
    import random

    from agentkgv.reader_agent.config import ReadingConfig
    from agentkgv.train.reader_corpora import rare_relation_pairs

    taken = taken_entity_pairs(ws, reader_forbidden(ws))
    pairs = [p for p in rare_relation_pairs(ws.data, relation_labels(ws), benchmark_relations_excluded(),
                                            learned, ReadingConfig().rare_below, random.Random(13), per_relation)
             if not names_a_pair_of(p.triple, taken)]

    def name(t: Triple) -> str:
        key = f"{label_key(t.subject)}|{t.predicate_id}|{label_key(t.object)}"
        return f"rare-relation:{t.predicate_id}:{hashlib.sha1(key.encode()).hexdigest()[:12]}"

    return [(LabeledTriple(name(p.triple), p.triple, p.label > 0.5), p.kind) for p in pairs]


def held_out_training_examples(ws: Workspace, held_out_share: float, count: int) -> list[Example]:
    """A fixed balanced draw of `count` training triples of the subjects a reader trained with
    `held_out_share` never saw (its calibration is fitted on them), none of them a FactBench entity pair."""
    from agentkgv.train.reader_data import held_out

    factbench = reader_forbidden(ws)[1]
    return balanced_subset([e for e in load_split(ws.benchmark, "train") if held_out(e, held_out_share)
                            and (label_key(e.triple.subject), label_key(e.triple.object)) not in factbench], count)


def held_out_training_items(ws: Workspace, held_out_share: float, count: int) -> list[LabeledTriple]:
    return [e.as_labeled() for e in held_out_training_examples(ws, held_out_share, count)]


def reader_held_out_share(folder: ReaderFolder) -> float:
    """The share of training subjects the reader in `folder` was trained without: its card records its
    settings; a card without them, the default's."""
    from agentkgv.train.reader_trainer import ReaderSettings

    return folder.card.training.get("settings", {}).get("held_out_share", ReaderSettings().held_out_share)


def reader_forbidden(ws: Workspace) -> tuple[set, set, set[str]]:
    """What the reader may never train on: the test splits' triples, every FactBench fact's (subject,
    object) pair, and the test_unseen relations."""
    from agentkgv.data.factbench import iter_factbench

    tests = [e for split in EVAL_SPLITS for e in load_split(ws.benchmark, split)]
    facts = {(label_key(t.triple.subject), label_key(t.triple.object)) for t in iter_factbench(ws.data)}
    return ({triple_key(e.triple) for e in tests}, facts, set(BenchmarkConfig.load().regimes.unseen))


def train_reader(ws: Workspace, run_name: str, settings_path: Path | None, threads: int | None = None,
                 hooks: Hooks = SILENT) -> dict:
    """Build the pairs (once), then train the reader under <cache>/train/<run_name>; resumes its checkpoints."""
    from agentkgv.train.reader_trainer import ReaderSettings, relation_counts
    from agentkgv.train.reader_trainer import train_reader as train

    settings = ReaderSettings.load(settings_path)
    run_dir = ws.training / run_name
    pairs = reader_pairs(ws, run_dir, settings, hooks)
    predicates = load_predicates(ws.data)
    glosses = {} if settings.relation_glosses == "none" else gloss_table(predicates, settings.relation_glosses)
    record = train(pairs, glosses, run_dir, settings, threads)
    before = ReaderFolder.open(settings.init_from).learned() if settings.init_from else None
    save_relations(run_dir / "reader", relation_counts(settings.trained_pairs(pairs), predicates, before))
    calibration = calibrate_reader(ws, run_dir / "reader", settings.held_out_share, settings.calibration_triples, hooks)
    return record | {"calibration": calibration.model_dump()}


def read_evidence(ws: Workspace, folder: Path, items: list, retriever, config, hooks: Hooks = SILENT,
                  label: str = "reading", distrust: tuple[str, ...] = ()) -> list:
    """What the reader in `folder` finds for each triple, read to the full search budget of `config` (a
    `ReadingConfig`) with no calibration deciding: the evidence a calibration is fitted on. The support of
    the sources in `distrust` is left out of it, as the run that is learned from left it out."""
    from agentkgv.reader_agent.agent import ReadingAgent
    from agentkgv.reader_agent.judges import ReaderJudge
    from agentkgv.reader_agent.reader import CrossEncoderReader
    from agentkgv.retrieval.guard import DistrustedSource

    judge = ReaderJudge(CrossEncoderReader(ReaderFolder.open(folder), cache=ws.cache), None)  # no calibration: read to the full budget
    agent = ReadingAgent(retriever, judge, paraphrases(ws),
                         config.model_copy(update={"reader": folder, "stop_policy": None}),
                         distrusted=DistrustedSource(distrust))
    evidence = []
    with hooks.bar(label, len(items)) as advance:
        for start in range(0, len(items), 64):
            chunk = items[start:start + 64]
            evidence += [r.evidence for r in agent.run(chunk)]
            advance(len(chunk))
    return evidence


def calibrate_reader(ws: Workspace, folder: Path, held_out_share: float, count: int, hooks: Hooks = SILENT):
    """Read the held-out training triples (a fixed balanced draw of `count`) to the full search budget with
    the reader in `folder`, fit its calibration and write it beside the reader."""
    from agentkgv.data.jsonl import write_jsonl
    from agentkgv.reader_agent.config import ReadingConfig
    from agentkgv.train.calibrate import fit_calibration

    examples = held_out_training_items(ws, held_out_share, count)
    evidence = read_evidence(ws, folder, examples, retriever_for(ws, RetrieverConfig(), hooks),
                             ReadingConfig(), hooks, "reading held-out training triples")
    write_jsonl(folder.parent / "held_out_evidence.jsonl",
                ({"id": e.id, "label": e.label, **asdict(v)} for e, v in zip(examples, evidence)))
    calibration = fit_calibration(evidence, [e.label for e in examples])
    calibration.save(folder)
    return calibration


def train_search_policy(ws: Workspace, run_name: str, settings_path: Path | None, reader: Path | None = None,
                        hooks: Hooks = SILENT) -> dict:
    """Read held-out training triples to the full budget once (the episodes, cached), then train the
    reading agent's stop policy under <cache>/train/<run_name>; resumes from its last checkpoint."""
    from agentkgv.reader_agent.agent import ReadingAgent
    from agentkgv.reader_agent.calibration import Evidence
    from agentkgv.reader_agent.config import ReadingConfig
    from agentkgv.reader_agent.judges import ReaderJudge
    from agentkgv.reader_agent.reader import CrossEncoderReader
    from agentkgv.train.search_policy import (HELD_OUT_TRAINING, RARE_RELATIONS, Episode, SearchPolicySettings,
                                              read_episodes, write_episodes)
    from agentkgv.train.search_policy import train_search_policy as train

    settings = SearchPolicySettings.load(settings_path)
    run_dir, folder = ws.training / run_name, ReaderFolder.open(reader or shipped_reader_dir())
    calibration, config = folder.calibrated, ReadingConfig(reader=folder.path)
    path = run_dir / "episodes.jsonl"
    pinned = {"reader": folder.support_fingerprint, "triples": settings.triples, "max_searches": config.max_searches,
              "rare_relations_per_relation": settings.rare_relations_per_relation,
              "evidence": [f.name for f in fields(Evidence)]}  # the fields the cached episodes hold
    if not (path.exists() and (run_dir / "episodes.settings.json").exists()
            and json.loads((run_dir / "episodes.settings.json").read_text()) == pinned):
        ensure_benchmark(ws, hooks)
        items = [(item, HELD_OUT_TRAINING)
                 for item in held_out_training_items(ws, reader_held_out_share(folder), settings.triples)]
        if settings.rare_relations_per_relation:
            items += [(item, RARE_RELATIONS) for item, _ in
                      rare_relation_items(ws, folder.learned(), settings.rare_relations_per_relation)]
        agent = ReadingAgent(retriever_for(ws, RetrieverConfig(), hooks), ReaderJudge(CrossEncoderReader(folder, cache=ws.cache), None),
                             paraphrases(ws), config)
        episodes = []
        with hooks.bar("reading the episodes' triples to the full budget", len(items)) as advance:
            for start in range(0, len(items), 64):
                chunk = items[start:start + 64]
                episodes += [Episode(tuple(r.history), bool(item.label), config.max_searches, source)
                             for (item, source), r in zip(chunk, agent.run([item for item, _ in chunk]))]
                advance(len(chunk))
        run_dir.mkdir(parents=True, exist_ok=True)
        write_episodes(path, episodes)
        (run_dir / "episodes.settings.json").write_text(json.dumps(pinned))
    return train(read_episodes(path), calibration, run_dir, settings, pinned["reader"])


def value_kind_facts(ws: Workspace) -> list[Triple]:
    """The facts the value-kind model learns from: the training split's true triples, Re-DocRED's, TekGen's and
    the LAMA facts files', less the relations the benchmark keeps from training and any fact about a test-split or
    FactBench entity pair."""
    from agentkgv.data.lama import iter_known_triples
    from agentkgv.data.redocred import iter_redocred
    from agentkgv.data.tekgen import iter_tekgen_facts

    ensure_benchmark(ws)
    excluded, labels = benchmark_relations_excluded(), relation_labels(ws)
    taken = taken_entity_pairs(ws, reader_forbidden(ws))
    facts = [e.triple for e in load_split(ws.benchmark, "train") if e.label]
    facts += [d.triple(r, labels) for d in iter_redocred(ws.data) for r in d.relations]
    facts += [f.triple for f in iter_tekgen_facts(ws.data)]
    facts += [Triple(subject, labels.get(pid, pid), obj, predicate_id=pid)
              for pid, _, subject, _, obj in iter_known_triples(ws.data)]
    return [t for t in facts if t.predicate_id and t.predicate_id not in excluded and not names_a_pair_of(t, taken)]


def train_value_kinds(ws: Workspace, run_name: str, hooks: Hooks = SILENT) -> dict:
    """Fit the value-kind model on the training facts into <cache>/train/<run_name>/value_kinds."""
    from agentkgv.data.predicates import by_name
    from agentkgv.encoders import embed
    from agentkgv.reader_agent.value_kinds import save_value_kinds
    from agentkgv.train.value_kinds import fit_value_kinds

    facts = value_kind_facts(ws)
    hooks.note(f"{len(facts)} training facts of {len({t.predicate_id for t in facts})} relations")
    model, report = fit_value_kinds(facts, lambda texts: embed(texts, show_progress=True), progress=hooks.note)
    keys = by_name(load_predicates(ws.data), {pid: pid for pid in model.kinds})
    folder = ws.training / run_name / "value_kinds"
    save_value_kinds(folder, keys, model, report)
    return {"folder": str(folder), **report}


def train_value_reader_run(ws: Workspace, run_name: str, settings_path: Path | None, reader_settings: Path | None,
                           hooks: Hooks = SILENT) -> dict:
    """Build the evidence reader's pairs (its settings from `reader_settings`, else the defaults with web pages),
    train the value reader on them and write it under <cache>/train/<run_name>/value_reader."""
    from agentkgv.reader_agent.value_reader import save_value_reader
    from agentkgv.train.reader_trainer import ReaderSettings
    from agentkgv.train.value_reader import ValueReaderSettings, train_value_reader

    settings = ValueReaderSettings.load(settings_path)
    pair_settings = ReaderSettings.load(reader_settings) if reader_settings else ReaderSettings(web_form_share=1.0)
    run_dir = ws.training / run_name
    pairs = reader_pairs(ws, run_dir, pair_settings, hooks)
    with hooks.bar("training the value reader", None) as advance:
        model, margin, measured = train_value_reader(pairs, settings, lambda step, steps, loss: advance(1))
    folder = run_dir / "value_reader"
    save_value_reader(model, folder, {"margin": margin, "settings": settings.model_dump(), "measured": measured})
    return {"folder": str(folder), **measured}
