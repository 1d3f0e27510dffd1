"""Relations no reader trained on (BENCHMARKS.md, *The evidence reader*): how well a reader reads a relation it
never saw, measured on TekGen's held-out relations rather than on test_unseen.

`tekgen_per_relation` in the reader settings adds TekGen's pairs to a reader's training, less a
`held_out_share` of its relations (a hash of the id). This scores the pairs of those held-out relations
(their sentences beside the true triple, the same pair under another relation, and the subject with
another object its sentence states) with each reader named, keeping only relations that none of them
learned a fact of (their `relations.json`): the AUC of its support, over all pairs and per kind of negative.

With `--other-subject`, the check those held-out relations miss: held-out training triples (subjects no
reader trained on, relations every reader learned) beside their gold sentence (1) and beside the gold
sentence of another held-out subject with the same relation and object, which does not name this subject
(0): `Ada Smith | place of birth | London` beside "Bob Jones was born in London".

python experiments/reader_tekgen.py src/agentkgv/reader_agent/readers/minilm-kgv-gloss .cache/train/reader-tekgen2/reader \
    .cache/train/reader-tekgen3/reader     (1 minute; "relations no reader learned" depends on the readers named)
python experiments/reader_tekgen.py --other-subject <the same folders>   (after `agentkgv train-reader`: it
    reads the benchmark and corpus from the cache)
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

PER_RELATION = 80  # configs/reader_glosses_tekgen.toml's tekgen_per_relation


def main() -> None:
    import numpy as np
    from sklearn.metrics import roc_auc_score

    from agentkgv.reader_agent.reader import CrossEncoderReader
    from agentkgv.reader_agent.reader_folder import ReaderFolder
    from agentkgv.paths import Workspace
    from agentkgv.train.reader_trainer import ReaderSettings
    from agentkgv.train.reader_corpora import tekgen_pairs
    from agentkgv.commands.train_reader import benchmark_relations_excluded, relation_labels

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readers", nargs="+", type=Path, help="reader folders")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--other-subject", action="store_true", help="held-out training triples instead")
    args = parser.parse_args()
    if args.other_subject:
        return other_subject(args.readers, args.data)
    settings = ReaderSettings()
    labels = relation_labels(Workspace(args.data))
    _, pairs = tekgen_pairs(args.data, labels, benchmark_relations_excluded(), random.Random(settings.seed), PER_RELATION,
                            settings.corpus_swap_share, settings.held_out_share)
    learned = set()
    for folder in args.readers:
        learned |= {k for k, n in json.loads((folder / "relations.json").read_text()).items() if n}
    pairs = [p for p in pairs if p.triple.predicate_id not in learned]
    relations = sorted({p.triple.predicate_id for p in pairs})
    print(f"{len(pairs)} pairs of {len(relations)} relations no reader learned: "
          + ", ".join(f"{pid} {labels[pid]}" for pid in relations))
    gold = np.array([p.label > 0.5 for p in pairs])
    kinds = sorted({p.kind for p in pairs} - {"evidence"})
    print(f"{'reader':<48} {'AUC':>6}  " + "  ".join(f"{'vs ' + k:>16}" for k in kinds))
    for folder in args.readers:
        scores = np.asarray(CrossEncoderReader(ReaderFolder.open(folder)).score([(p.triple, p.text, p.title) for p in pairs]))
        row = [roc_auc_score(gold, scores)]
        for kind in kinds:
            rows = np.array([i for i, p in enumerate(pairs) if p.kind in ("evidence", kind)])
            row.append(roc_auc_score(gold[rows], scores[rows]))
        print(f"{str(folder):<48} {row[0]:6.3f}  " + "  ".join(f"{v:16.3f}" for v in row[1:]))


def other_subject(readers: list[Path], data: Path) -> None:
    import numpy as np
    from sklearn.metrics import roc_auc_score

    from agentkgv.reader_agent.reader import CrossEncoderReader, reader_view
    from agentkgv.reader_agent.reader_folder import ReaderFolder
    from agentkgv.data.benchmark import load_split
    from agentkgv.data.text import label_key
    from agentkgv.paths import Workspace
    from agentkgv.commands.build import retriever_for
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.train.reader_trainer import ReaderSettings
    from agentkgv.train.reader_data import held_out

    ws = Workspace(data)
    store = retriever_for(ws, RetrieverConfig()).store
    share = ReaderSettings().held_out_share
    positives = [e for e in load_split(ws.benchmark, "train") if e.label and held_out(e, share) and e.gold_passage_ids]
    by_fact: dict[tuple[str, str], list] = {}
    for e in positives:
        by_fact.setdefault((e.triple.predicate_id, label_key(e.triple.object)), []).append(e)
    pairs, gold = [], []
    gold_text = {e.id: store.get(e.gold_passage_ids[0]).text for e in positives}
    for e in positives:
        others = [gold_text[o.id] for o in by_fact[(e.triple.predicate_id, label_key(e.triple.object))]
                  if label_key(o.triple.subject) != label_key(e.triple.subject)]
        other = next((text for text in others if not reader_view(e.triple, text).has_subject), None)
        if other is not None:
            pairs += [(e.triple, gold_text[e.id], ""), (e.triple, other, "")]
            gold += [True, False]
    print(f"{len(pairs)} pairs: {len(pairs) // 2} held-out training triples, each beside its own sentence and another subject's")
    for folder in readers:
        scores = np.asarray(CrossEncoderReader(ReaderFolder.open(folder)).score(pairs))
        print(f"{str(folder):<48} AUC {roc_auc_score(gold, scores):.3f}")


if __name__ == "__main__":
    main()
