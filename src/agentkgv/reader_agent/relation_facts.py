"""What the facts files say of each relation: whether it has one value per subject, the names its values take,
the words that state it. Where another value a passage states contradicts a triple, and where a passage's
words say another relation (reader_agent/relation_cues.py).

`born in Cheltenham` contradicts `born in London`; `plays the guitar` excludes nothing of `plays the piano`, and
speaks against it only as another of several values, where nothing supports it (reader_agent/contradiction.py).
Which relations have one value: the shipped table (`one_valued.json`, by Wikidata id, label and alias,
lower-cased; X-FACTR's N-1 and 1-1 relations less a player's teams, with the place of foundation, which LAMA types N-1:
`data.predicates.one_valued_keys`, which a test checks it against)
and a run's own (`ReadingConfig.one_valued`, less `ReadingConfig.many_valued`). What counts as another value: a
name the facts files give as an object of that relation (a city for a place of birth, a network for a network),
found in the passage as written, so that `Wales` is never read as a genre. A name that follows another after a
comma is where the first lies (`Cheltenham, Gloucestershire`), not a second value.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from agentkgv.data.co_mention import ObjectNames
from agentkgv.data.errors import DataError
from agentkgv.data.lama import iter_known_triples
from agentkgv.data.places import gazetteer
from agentkgv.data.predicates import PredicateInfo, by_name, by_predicate, load_predicates, predicate_key, shippable
from agentkgv.data.records import Triple
from agentkgv.data.text import folded_words
from agentkgv.reader_agent.relation_cues import CueTable, RelationCues, read_cue_table

ONE_VALUED_FILE = "one_valued.json"
# The relations whose objects are countries: a country, a citizenship, a country of origin.
COUNTRIES = ("P17", "P27", "P495")


def shipped_table() -> Path:
    return Path(str(resources.files("agentkgv.reader_agent").joinpath(ONE_VALUED_FILE)))


@dataclass(frozen=True)
class RelationFacts:
    keys: frozenset[str]  # the relations with one value per subject
    # The names each relation's objects take, by the relation's id, label and aliases (`by_name`).
    names: dict[str, ObjectNames] = field(default_factory=dict)
    cues: RelationCues = field(default_factory=lambda: RelationCues({}, {}))
    # Each relation's label and the aliases that name it alone (`own_names`), by its id, label and aliases
    # (`by_name`): DBpedia's `death place` is Wikidata's `place of death`, the name the value reader learned to be
    # asked, and a page's key may be any of them.
    named: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The relations a run says have several values (`ReadingConfig.many_valued`), by id or name: a triple named so
    # by either is taken out, whatever the other says.
    removed: frozenset[str] = frozenset()

    def holds(self, triple: Triple) -> bool:
        return self._key(triple) is not None

    def knows(self, triple: Triple) -> bool:
        """Whether the predicates table names the triple's relation (by id, label or alias): one it does not (a raw
        infobox key, DBpedia's `background`, `latDirection`) may take one value or several, nobody says."""
        return by_predicate(self.named, triple, None) is not None

    def _key(self, triple: Triple) -> str | None:
        if any(key in self.removed for key in triple.predicate_keys):
            return None
        return predicate_key(self.keys, triple)

    def names_of(self, triple: Triple) -> tuple[str, ...]:
        """The relation's label and the aliases that name it alone where the predicates table knows it, else its
        predicate as written."""
        return by_predicate(self.named, triple, (triple.predicate,))

    def label(self, triple: Triple) -> str:
        return self.names_of(triple)[0]

    def may_hold(self, value: str, triple: Triple) -> bool:
        """Whether `value` may be a place that holds the triple's object, or that a claimed country holds. A country
        (by the facts files' countries) where the object is none, unless the gazetteer (data/places.py) knows both
        and puts the object neither in it nor in a country on its borders: "Place of Birth: Australia" states nothing
        against a birth in Adelaide, and contradicts one in Geneva (`elsewhere`). Where the claim is of a country,
        another country is another value, and a place the gazetteer puts in it (or on its borders) is one of its
        places ("Brussels" for Belgium). Of a relation with one value, a town the gazetteer puts near a town the object
        names (`Gazetteer.near`) is the same place as pages write it: "died in Manhattan" states nothing against a
        death in New York City (a team or a spouse named as a town may be another, near or not: "Chelsea", "Fulham")."""
        if self._of_country(triple):
            places = gazetteer()
            return places.country(value) is None and any(places.holds(name, value) for name in triple.object_names)
        if self._country_of_other(value, triple):
            return not self._outside(value, triple)
        return value[:1].isupper() and self.holds(triple) and any(
            gazetteer().near(value, name) for name in triple.object_names if name[:1].isupper())

    def elsewhere(self, value: str, triple: Triple) -> bool:
        """Whether `value` is a country that the gazetteer puts the triple's object outside of and off its borders:
        another value, though of another kind than a town ("Australia" for a birth in Geneva)."""
        return self._country_of_other(value, triple) and self._outside(value, triple)

    @staticmethod
    def _outside(country: str, triple: Triple) -> bool:
        return all(gazetteer().holds(country, name) is False for name in triple.object_names)

    def _countries(self) -> list[ObjectNames]:
        return [self.names[key] for key in COUNTRIES if key in self.names]

    def _of_country(self, triple: Triple) -> bool:
        own = by_predicate(self.names, triple, None)
        return any(pool is own for pool in self._countries())

    def _country_of_other(self, value: str, triple: Triple) -> bool:
        """Whether `value` is a country and the object of a claim not of a country is none."""
        pools = self._countries()

        def country(name: str) -> bool:
            return any(tuple(folded_words(name)) in pool.by_words for pool in pools)
        return (not self._of_country(triple) and country(value)
                and not any(country(name) for name in triple.object_names))

    def others_in(self, triple: Triple, text: str, limit: int) -> list[str]:
        """The values of this relation `text` names as written, other than the triple's object and its aliases and
        outside the subject's names; a name right after another and a comma left out. Of a relation with one value
        they contradict the triple; of one with several, they speak against it (reader_agent/contradiction.py)."""
        names = by_predicate(self.names, triple, None)
        if names is None:
            return []
        own = {tuple(folded_words(n)) for n in (*triple.object_names, *triple.subject_names)}
        subject = " " + " ".join(" ".join(folded_words(n)) for n in triple.subject_names) + " "
        found: list[tuple[int, str]] = []
        for _, label in names.found_in(text):
            match = re.search(rf"(?<!\w){re.escape(label)}(?!\w)", text)
            words = tuple(folded_words(label))
            if match is None or words in own or f" {' '.join(words)} " in subject:
                continue
            if re.search(r"\w[\w.)]*\s*,\s*$", text[:match.start()]):
                continue  # `Cheltenham, Gloucestershire`: the place that contains the one before
            found.append((match.start(), label))
        return [label for _, label in sorted(found)][:limit]

    @staticmethod
    def read(path: Path, extra: tuple[str, ...] = (), names: dict[str, ObjectNames] | None = None,
             cues: RelationCues | None = None, named: dict[str, tuple[str, ...]] | None = None,
             many: tuple[str, ...] = ()) -> RelationFacts:
        """The one-valued relations of the table at `path`, with those of `extra` and without those of `many` (by
        id or name)."""
        try:
            keys = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise DataError(path, f"cannot read the one-valued relations: {error}") from None
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise DataError(path, "expected a list of relation ids and names")

        def keyed(given: tuple[str, ...]) -> frozenset[str]:
            return frozenset(name if re.fullmatch(r"P\d+", name) else name.lower() for name in given)
        return RelationFacts(frozenset(keys) | keyed(extra), names or {}, cues or RelationCues({}, {}), named or {},
                             keyed(many))

    @staticmethod
    def load(data_dir: Path, extra: tuple[str, ...] = (), cache: Path | None = None,
             many: tuple[str, ...] = ()) -> RelationFacts:
        """The shipped tables, with `extra` and without `many` (`read`): the relations with one value and every
        relation's cues, with the names of each relation's objects that the facts files under `data_dir` hold (none
        without them: then a value the value reader finds, a date or a number contradicts, and no name the facts
        files know).
        Built once per folder and process: every verifier of a run shares it. `cache`: a folder where the names
        read from the facts files are kept, keyed by the files' sizes and times, so that the next process reads
        one file instead of 300,000 facts."""
        return _loaded(Path(data_dir).resolve(), tuple(extra), cache and Path(cache).resolve(), tuple(many))


def cue_table(data_dir: Path) -> CueTable:
    """The cue table the package ships, from the data folder: the cues of the predicates whose sources may be
    shipped, the rivals among the shipped one-valued relations by the objects the facts files give them."""
    single = {key for key in json.loads(shipped_table().read_text(encoding="utf-8")) if re.fullmatch(r"P\d+", key)}
    return RelationCues.build(shippable(data_dir), _object_labels(data_dir, None), single)


def _object_labels(data_dir: Path, cache: Path | None) -> dict[str, set[str]]:
    """The labels of each relation's objects in the facts files, by relation id."""
    root = data_dir / "lama_trex"
    if not root.exists():
        return {}
    kept = None
    if cache is not None:
        stamp = hashlib.sha256("\n".join(f"{p.relative_to(root)} {p.stat().st_size} {p.stat().st_mtime_ns}"
                                         for p in sorted(root.rglob("*")) if p.is_file()).encode()).hexdigest()[:16]
        kept = cache / "relation-facts" / f"object-labels-{stamp}.json"
        if kept.exists():
            return {relation: set(labels) for relation, labels in json.loads(kept.read_text(encoding="utf-8")).items()}
    pools: dict[str, set[str]] = defaultdict(set)
    for predicate, _, _, _, label in iter_known_triples(data_dir):
        pools[predicate].add(label)
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_suffix(".tmp")
        partial.write_text(json.dumps({r: sorted(labels) for r, labels in sorted(pools.items())}), encoding="utf-8")
        partial.replace(kept)
    return pools


def own_names(predicates: dict[str, PredicateInfo]) -> dict[str, tuple[str, ...]]:
    """Each relation's label and the aliases that name it alone: as a page's key, `state` might be a country's or a
    province's, and a two-letter alias (`in`) is no key."""
    shared = Counter(name.lower() for info in predicates.values() for name in {info.label.lower(),
                                                                                *(a.lower() for a in info.aliases)})
    return {pid: (info.label, *(a for a in info.aliases if shared[a.lower()] == 1 and len(a) > 2))
            for pid, info in predicates.items()}


@lru_cache(maxsize=4)
def _loaded(data_dir: Path, extra: tuple[str, ...], cache: Path | None, many: tuple[str, ...]) -> RelationFacts:
    # The cues ship (the data folder's own give the same table, which a test checks); the names need the facts.
    predicates = load_predicates(data_dir, shipped_if_missing=True)
    cues = RelationCues.of(predicates, read_cue_table())
    pools = _object_labels(data_dir, cache)
    names = by_name(predicates, {pid: ObjectNames([("", label) for label in sorted(labels)])
                                 for pid, labels in pools.items()})
    named = by_name(predicates, own_names(predicates))
    return RelationFacts.read(shipped_table(), extra, names, cues, named, many)
