"""Could a predicate that no Wikidata label or alias names (FactBench's `foundation place`, a user's `ceo of`)
borrow the gloss and the routing of the nearest known relation by meaning? (BENCHMARKS.md, *Relation
glosses*.) Every Wikidata label and alias is embedded with MiniLM (the offline encoder the package installs).

1. Leave one name out: each alias's nearest other name, and whether it belongs to the same property, by how
   similar the two are: how often a nearest neighbour above a threshold is the right relation.
2. The benchmark's predicates that no label or alias names, and some a user might write, with their three
   nearest names.

python experiments/relation_neighbours.py   (about a minute on 2 cores)
"""

from __future__ import annotations

import numpy as np

USER_WORDS = ("headquartered in", "works for", "ceo of", "married to", "founder of", "studied at")


def main() -> None:
    from sentence_transformers import SentenceTransformer

    from agentkgv.encoders import base_model_path
    from agentkgv.data.benchmark import load_split
    from agentkgv.data.predicates import by_name, load_predicates
    from agentkgv.paths import Workspace, data_dir

    predicates = load_predicates(data_dir())
    names, owners = [], []
    for pid, info in predicates.items():
        for name in dict.fromkeys(n.lower() for n in (info.label, *info.aliases)):
            names.append(name)
            owners.append(pid)
    owners_of = np.array(owners)
    model = SentenceTransformer(base_model_path(), device="cpu")
    vectors = model.encode(names, batch_size=256, normalize_embeddings=True, show_progress_bar=False)
    print(f"{len(names)} names of {len(predicates)} properties")

    similar = vectors @ vectors.T
    np.fill_diagonal(similar, -1.0)
    same_string = np.array(names)[:, None] == np.array(names)[None, :]
    similar[same_string] = -1.0  # the same words under another property say nothing about meaning
    nearest = similar.argmax(axis=1)
    best = similar[np.arange(len(names)), nearest]
    right = owners_of[nearest] == owners_of
    print("threshold | names whose nearest other name is at least this similar | of them, the same property")
    for threshold in (0.6, 0.7, 0.8, 0.85, 0.9, 0.95):
        above = best >= threshold
        print(f"{threshold:>9} | {above.sum():>6} ({above.mean():.0%}) | {right[above].mean():.1%}")

    known = by_name(predicates, {pid: pid for pid in predicates})
    words = sorted({e.triple.predicate.lower() for e in load_split(Workspace().benchmark, "factbench_docs")
                    if e.triple.predicate_id not in known and e.triple.predicate.lower() not in known})
    for word in (*words, *USER_WORDS):
        scores = vectors @ model.encode([word], normalize_embeddings=True)[0]
        top = np.argsort(-scores)[:3]
        print(f"{word!r}: " + "; ".join(f"{owners[i]} {predicates[owners[i]].label} (as {names[i]!r}) "
                                        f"{scores[i]:.3f}" for i in top))


if __name__ == "__main__":
    main()
