"""What the default's remaining errors on the T-REx splits are, read by a person (BENCHMARKS.md, *Headline*:
"What the remaining errors are"): a fixed draw of 30 errors per split from the `routed` run, each given one
cause below after reading the triple, the passages the agent cited (false positives) or the best passage it
read, preferring a gold evidence passage (false negatives).

- `label`: the triple labelled false is true by the passages and common knowledge (`Averroes | religion |
  Muslim`, `dumpling | has part | dough`, `Netherlands | member of | United Nations`);
- `unsupported`: a true triple no read passage states (the split's gold passage, aligned by name, is about
  the national futsal team, or another person of the name);
- `named otherwise`: a read passage states the true triple with a name written otherwise (`archaeologist`
  for archaeology, `Turner Network Television` for TNT), and the reader scored it too low;
- `co-mention`: a false triple a passage names both sides of without stating it, which the reader accepted.

python experiments/error_audit.py              print the draw from `routed` with its causes, and the tally
python experiments/error_audit.py --run NAME   the same draw, and which of its errors run NAME still makes
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

RUNS = Path(".cache/runs")
SPLITS = ("test_long_tail", "test_unseen")
DRAW, SEED = 30, 2026

CAUSES = {
    "test_long_tail:P449:994b7cc720": "named otherwise",  # Running Mates | original network | TNT
    "test_long_tail:P463:a9a7c63766": "unsupported",  # Iraq Football Association | member of | FIFA
    "test_long_tail:P136:539eddf98c": "co-mention",  # The Jazz Knights | genre | reggae (Reggae Knights)
    "test_long_tail:P101:bc060cb9c0": "label",  # Elinor Ostrom | field of work | economist
    "test_long_tail:P178:6b0b252050": "unsupported",  # Small Web Format | developer | Adobe ("both formats")
    "test_long_tail:P178:8eca29784f": "co-mention",  # iPod Touch | developer | Samsung
    "test_long_tail:P364:1e8a3a9bd9": "named otherwise",  # Akademi Fantasi Indosiar | ... | Indonesian
    "test_long_tail:P463:74c2d1d8da": "unsupported",  # Vietnam Football Funny | member of | FIFA
    "test_long_tail:P463:1349e8b54c": "unsupported",  # Aruba Football Federation (the team is affiliated)
    "test_long_tail:P463:4a46ebe44a": "unsupported",  # Zimbabwe Football Association | member of | FIFA
    "test_long_tail:P178:fc60e695bb": "unsupported",  # IBM AIX | developer | IBM
    "test_long_tail:P101:ab924711b2": "named otherwise",  # Alexey Okladnikov | field of work | archaeology
    "test_long_tail:P463:c9c4e39508": "unsupported",  # Royal Moroccan Football Federation | member of | FIFA
    "test_long_tail:P178:3c8c69efe4": "co-mention",  # ThinkPad | developer | Microsoft
    "test_long_tail:P101:65dd9c3da5": "named otherwise",  # Johannes de Sacrobosco | field of work | mathematics
    "test_long_tail:P449:898c03a770": "co-mention",  # The Lucy Show | original network | NBC
    "test_long_tail:P364:42e210be2f": "named otherwise",  # Angadi Theru | original language of work | Tamil
    "test_long_tail:P101:ae1deb9b1a": "unsupported",  # Jean Le Rond d'Alembert (a disambiguation page)
    "test_long_tail:P463:7b7a235ee0": "unsupported",  # Gibraltar Football Association | member of | FIFA
    "test_long_tail:P463:86a293996d": "unsupported",  # Cyprus Football Association | member of | FIFA
    "test_long_tail:P463:35b3087400": "unsupported",  # Philippine Football Federation | member of | FIFA
    "test_long_tail:P364:47282c2e51": "unsupported",  # The Names of Love | original language of work | French
    "test_long_tail:P463:e1e67b1194": "unsupported",  # Uzbekistan Football Association | member of | FIFA
    "test_long_tail:P463:2b267436c6": "unsupported",  # All India Football Federation | member of | FIFA
    "test_long_tail:P463:4580b0ea95": "co-mention",  # Albania | member of | European Union (a candidate)
    "test_long_tail:P101:4f3bb5999e": "co-mention",  # Jon Postel | field of work | computer
    "test_long_tail:P101:2623d0a432": "unsupported",  # Flemish Primitives | field of work | drawing
    "test_long_tail:P463:3ff32e54da": "label",  # Jamaica Football Federation | member of | FIFA
    "test_long_tail:P463:6b2d9ca4fc": "label",  # Netherlands | member of | United Nations
    "test_long_tail:P463:cad2e4cc20": "unsupported",  # Latvian Football Federation | member of | FIFA
    "test_unseen:P527:18e50554d8": "label",  # Eastern Europe | has part | Montenegro
    "test_unseen:P140:94df888743": "unsupported",  # Conrad I of Germany | religion | Christianity
    "test_unseen:P127:3436a820d3": "unsupported",  # Liberty Bowl Memorial Stadium | owned by | Memphis
    "test_unseen:P413:7b9ef727ed": "co-mention",  # Vince Young | position played | linebacker ("quarterback Vince Young")
    "test_unseen:P138:565a3d8b69": "co-mention",  # Melbourne Football Club | named after | Sydney
    "test_unseen:P103:4b9cbc7f46": "co-mention",  # Imanol Arias | native language | English ("English: ...")
    "test_unseen:P127:a685eda622": "unsupported",  # The Sleepers | owned by | Paris
    "test_unseen:P527:f358a0fd74": "label",  # sukiyaki | has part | meat
    "test_unseen:P140:ba8eea597c": "label",  # Emirate of Granada | religion | Muslim
    "test_unseen:P527:b135b45a81": "label",  # dumpling | has part | dough
    "test_unseen:P407:b8eae564d3": "unsupported",  # Light Years | language of work or name | English
    "test_unseen:P140:dfeab8ee9a": "unsupported",  # al-Maʾmun | religion | Islam
    "test_unseen:P138:68b5d1c941": "co-mention",  # Amsterdam Airport Schiphol | named after | Netherlands
    "test_unseen:P127:2b1a9a1252": "co-mention",  # The Night Watch | owned by | Netherlands
    "test_unseen:P138:22c3383578": "co-mention",  # Melbourne Airport | named after | Sydney
    "test_unseen:P140:41fea30d05": "label",  # Hasan ibn Ali | religion | Muslim
    "test_unseen:P140:0b5fa5aa62": "label",  # Averroes | religion | Muslim
    "test_unseen:P140:38dee0ba59": "co-mention",  # Soha Ali Khan | religion | Muslim (no passage names her)
    "test_unseen:P527:49b3f4e0a9": "co-mention",  # piano trio | has part | musical
    "test_unseen:P138:d536061e95": "co-mention",  # Belgrade Nikola Tesla Airport | named after | Serbia
    "test_unseen:P140:e1bff39dd8": "label",  # ayatollah | religion | Muslim
    "test_unseen:P527:cfde1ecdf3": "label",  # baozi | has part | dough
    "test_unseen:P127:5d19978b14": "unsupported",  # BBC Records | owned by | BBC
    "test_unseen:P39:fc7e405c31": "unsupported",  # Poppo of Treffen | position held | bishop (another Poppo)
    "test_unseen:P140:1fe8012f91": "label",  # Mataram Sultanate | religion | Muslim
    "test_unseen:P407:bd6b3b7641": "unsupported",  # HuffPost | language of work or name | English
    "test_unseen:P140:da9953f6a1": "named otherwise",  # Moshe ben Maimon | religion | Judaism ("Rabbi ...")
    "test_unseen:P407:37f9bd9199": "unsupported",  # Apache HTTP Server | language of work or name | English
    "test_unseen:P140:b04011e59c": "unsupported",  # Hezekiah | religion | Judaism (another Hezekiah)
    "test_unseen:P407:f6b1915e53": "co-mention",  # Alexander | language of work or name | Spanish (a name list)
}


def errors(run: str, split: str) -> dict[str, dict]:
    rows = [json.loads(line) for line in (RUNS / run / f"agentkgv.{split}.jsonl").open()]
    return {r["id"]: r for r in rows if (r["verdict"] is True) != r["gold"]}


def drawn(routed: dict[str, dict]) -> list[dict]:
    """The audited draw: fixed by the `routed` run's errors and the seed."""
    random.seed(SEED)
    return random.sample(list(routed.values()), DRAW)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", help="another eval run of the reader agent: which audited errors it still makes")
    args = parser.parse_args()
    for split in SPLITS:
        routed = errors("routed", split)
        draw = drawn(routed)
        still = errors(args.run, split) if args.run else None
        tally, kept = Counter(), Counter()
        for record in draw:
            t, cause = record["triple"], CAUSES[record["id"]]
            tally[cause] += 1
            kept[cause] += still is not None and record["id"] in still
            mark = "" if still is None else ("  still wrong" if record["id"] in still else "  fixed")
            print(f"{split}  {'FP' if record['verdict'] else 'FN'}  {cause:<15} {t['subject']} | {t['predicate']} | "
                  f"{t['object']}  (P(true) {record['p_true']:.2f}){mark}")
        print(f"{split}: {len(routed)} errors in routed; the {DRAW} drawn: " + ", ".join(
            f"{cause} {n}" + (f" ({kept[cause]} still wrong in {args.run})" if still is not None else "")
            for cause, n in tally.most_common()) + "\n")


if __name__ == "__main__":
    main()
