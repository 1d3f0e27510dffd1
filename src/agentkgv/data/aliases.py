"""Other names of an entity, as documents write them: `Danish` for Denmark, `actress` for actor.

The agent may call a triple true only when a shown passage names both its subject and its object, and a
name is matched as a whole-word string. A passage stating "Paul Gustav Fischer was a Danish painter" then
names no `Denmark`, though it states the citizenship: about one in five true training facts has no evidence
sentence naming both labels. Where a user's graph carries aliases (Wikidata's altLabels), the triple holds
them. The benchmark has none, so it learns them from how the evidence sentences of the *training* facts
name their entities (LAMA's `sub_surface` / `obj_surface`); no test fact's sentence teaches a name.

A surface form becomes an alias when the evidence of at least `min_count` distinct facts names the entity
by it, which a one-off linking slip (`Paris, Texas` for Paris) does not; a form that contains the label
already matches through it, and one word of a longer name (a surname) names others as often.

The table is also a file (`aliases.jsonl`, one `{"name": ..., "aliases": [...]}` per entity): the benchmark
writes what it learned there, and `verify --aliases` adds a table (that one, or the user's own) to the
triples of any graph.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from agentkgv.data.errors import DataError, require
from agentkgv.data.jsonl import read_jsonl, write_jsonl
from agentkgv.data.records import Fact, Triple
from agentkgv.data.text import folded_words

MIN_COUNT = 3
MAX_ALIASES = 5
ALIAS_FILE = "aliases.jsonl"


def name_key(name: str) -> str:
    """A name as a table key, folded as mentions are matched (case, accents, punctuation)."""
    return " ".join(folded_words(name))


def _part_of(words: list[str], part: list[str]) -> bool:
    return any(words[i:i + len(part)] == part for i in range(len(words) - len(part) + 1))


def _is_alias(form: str, label: str) -> bool:
    """Whether `form` adds a name for `label`: not the label inside something longer (that matches through the
    label already), and not one word of a longer name (`Camus` for Albert Camus, `Geneva` for the University
    of Geneva), which as often names someone or something else."""
    words, label_words = folded_words(form), folded_words(label)
    if sum(map(len, words)) < 3 or _part_of(words, label_words):
        return False
    return not (len(words) == 1 and _part_of(label_words, words))


def surface_aliases(facts: Iterable[Fact], min_count: int = MIN_COUNT,
                    max_aliases: int = MAX_ALIASES) -> dict[str, tuple[str, ...]]:
    """Aliases by entity (`name_key`), most used first: forms that `min_count` distinct facts' evidence uses.
    A fact counts once per form however many of its evidence records repeat it (LAMA repeats sentences)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    labels: dict[str, str] = {}
    for fact in facts:
        for label, surfaces in ((fact.triple.subject, fact.subject_surfaces),
                                (fact.triple.object, fact.object_surfaces)):
            labels.setdefault(name_key(label), label)
            counts[name_key(label)].update(set(surfaces))
    table = {}
    for key, forms in counts.items():
        chosen = [form for form, count in forms.most_common() if count >= min_count and _is_alias(form, labels[key])]
        if chosen:
            table[key] = tuple(chosen[:max_aliases])
    return table


def with_aliases(triple: Triple, table: dict[str, tuple[str, ...]]) -> Triple:
    """The triple with its subject's and object's aliases from `table` added to any it already carries."""
    subject = tuple(dict.fromkeys((*triple.subject_aliases, *table.get(name_key(triple.subject), ()))))
    obj = tuple(dict.fromkeys((*triple.object_aliases, *table.get(name_key(triple.object), ()))))
    return replace(triple, subject_aliases=subject, object_aliases=obj)


def write_alias_table(path: Path, table: dict[str, tuple[str, ...]]) -> int:
    return write_jsonl(path, ({"name": name, "aliases": list(aliases)} for name, aliases in sorted(table.items())))


def read_alias_table(path: Path) -> dict[str, tuple[str, ...]]:
    """An alias file as a table; a bad line raises DataError naming the file, line and field."""
    table: dict[str, tuple[str, ...]] = {}
    for line, record in read_jsonl(path):
        name = require(record, "name", path, line)
        aliases = require(record, "aliases", path, line)
        if not isinstance(name, str):
            raise DataError(path, f"expected a name, got {name!r}", line, "name")
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise DataError(path, f"expected a list of names, got {aliases!r}", line, "aliases")
        key = name_key(name)
        table[key] = tuple(dict.fromkeys((*table.get(key, ()), *(a.strip() for a in aliases if a.strip()))))
    return table
