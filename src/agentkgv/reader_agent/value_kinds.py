"""Whether a triple's object is of a kind its relation takes: an award is no notable work, a town no award, a year
no spouse. A claim whose object its relation cannot take is false whatever a passage names, since no passage
can state it: the reader, which keys on the names a passage holds, would support "Saul Bellow | starring | Nobel
Prize in Literature" from a page naming both.

A softmax over the relations learned reads which relation's objects a value's MiniLM embedding is like; the
relations of one kind share its probability (train/value_kinds.py, on the training facts only), and a value fits
a relation by its kind's share. Graphs name a relation from either end (FactBench's `author` goes from the writer
to the book, Wikidata's from the book to its writer), so a claim fails only where it fits the relation read from
neither end: its object is not of the kind of the relation's objects, and it is not the case that the object is of
the kind of the relation's subjects and the subject of the kind of its objects. "Cole Porter | award | Peru,
Indiana" fails both ways (a town is no award; read backwards, Cole Porter is no award either). The subject is only
ever checked in that backward reading: names alone tell subjects' kinds apart poorly (train/value_kinds.py). The
shipped model is `value_kinds/` beside this file. A relation it was not trained on, by id, label or alias, is not
judged.

Names alone mistake a place for a person often enough that a relation's threshold must let some through
("Iraq" fits `spouse` at 0.17). So the model also keeps the values the training facts know, with the relations
each is a value of: a known value whose relations are mostly of kinds the relation takes at neither end ("Iraq", the
value of `country` and `shares border with`, as a spouse; "New York City", a location hundreds of times and a
capital once) does not fit, whatever its name reads as. Which relations
take one another's values (`KindModel.compatible`) is read off the facts (their values overlap) and off the
classifier (it mistakes one's held-out values for the other's), so people of every relation stay one kind. And a
known value mostly of relations the relation takes fits, however its name reads ("Sting", a performer, as a spouse); a
known value of others whose name reads as the relation's kind is taken for a namesake ("Cher" is a département).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import zlib
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from agentkgv.data.errors import DataError
from agentkgv.data.places import gazetteer
from agentkgv.data.predicates import by_predicate
from agentkgv.data.records import Triple
from agentkgv.data.text import folded_words, label_key

WEIGHTS_FILE = "value_kinds.safetensors"
CARD_FILE = "value_kinds.json"
KNOWN_FILE = "known_values.json.gz"
# The cosine of two names' embeddings from which one is the other written otherwise, no other value: "Jewish" for
# Judaism (0.87), "Islamic" for Islam (0.90), "Buddhist" for Buddhism (0.92). Two languages or two branches of one
# faith stand below it ("Norwegian" and "Danish" 0.82, "Sunni Islam" and "Shia Islam" 0.80, "Telugu" and "Tamil"
# 0.71); what stands above and is not the same value is a part of it ("Orthodox Judaism" 0.84, "Russian Orthodox
# Church" for the Eastern Orthodox Church 0.86), which contradicts it no more. Names that share a word are told
# apart by their words (`contradiction.stated_other`), however close: "BBC Two" is no "BBC One" (0.87), nor
# "West Virginia" Virginia (0.88).
SAME_VALUE_AT = 0.85
# The fit of a value's name to its relation at which a known value of other relations is taken for a namesake.
AMBIGUOUS_NAME = 0.5
# The share of a known value's facts that must be of relations whose values a relation takes for it to fit by them.
KNOWN_SHARE = 0.5
# The share of a relation's known values that the gazetteer knows as places under which a place written with its region
# ("Winterset, Iowa") is no value of it. A relation that takes places takes a fifth of them or more (`capital of` 0.21,
# `location` 0.29, `place of birth` 0.78); under it stand the relations whose values share a name with a town
# (`spouse` 0.07: Florence, Victoria; `member of sports team` 0.12: Chelsea), which no town written with its region is.
PLACE_SHARE = 0.15
# The share of a relation's known values that must be names (a letter first) for a place to be read as no value of it:
# a relation of dates (`inception`, keyed by DBpedia's `foundation`) is not judged so.
NAMED_SHARE = 0.9
# Relations whose values are works, whose titles may be a town written with its region ("Paris, Texas", a film;
# "Memphis, Tennessee", a song): no place read so is a misfit of theirs. Notable work, present in work, based on,
# follows, followed by, part of the series, part of, has part, tracklist, derivative work, published in.
TITLED = frozenset({"P800", "P1441", "P144", "P155", "P156", "P179", "P361", "P527", "P658", "P4969", "P1433"})


def shipped_value_kinds() -> Path:
    return Path(str(resources.files("agentkgv.reader_agent").joinpath("value_kinds")))


# The names embedded in this process, by name: a claim's object and the values its pages give come back turn after
# turn, and one encoder call costs about as much for one name as for a batch. Cleared when it would hold more.
_VECTORS: dict[str, np.ndarray] = {}
MAX_CACHED_NAMES = 100_000


def _embedded(names: list[str]) -> np.ndarray:
    """The names' MiniLM embeddings (normalised), each computed once a process."""
    from agentkgv.encoders import embed

    missing = list(dict.fromkeys(name for name in names if name not in _VECTORS))
    if missing:
        if len(_VECTORS) + len(missing) > MAX_CACHED_NAMES:
            _VECTORS.clear()
        _VECTORS.update(zip(missing, embed(missing)))
    return np.stack([_VECTORS[name] for name in names])


def relation_softmax(coef: np.ndarray, intercept: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """For each value (a row of `vectors`), the classifier's probability of each relation."""
    z = vectors @ coef.T + intercept
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def kind_fit(coef: np.ndarray, intercept: np.ndarray, vectors: np.ndarray, kinds: list[list[int]]) -> np.ndarray:
    """P(fits) of each value (a row of `vectors`) for its relation, whose kind's classes are `kinds[i]`: the
    softmax's mass on them."""
    p = relation_softmax(coef, intercept, vectors)
    return np.array([p[i, kind].sum() for i, kind in enumerate(kinds)])


def kind_overlap(coef: np.ndarray, intercept: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How alike two values' kinds are: the overlap (Bhattacharyya coefficient, 0 to 1) of the softmax over the
    relations for each row of `a` and of `b`."""
    return np.sqrt(relation_softmax(coef, intercept, a) * relation_softmax(coef, intercept, b)).sum(axis=1)


def _same_values(objects: list[str], values: list[str], given: np.ndarray, stated: np.ndarray) -> np.ndarray:
    """Whether each value is its object written otherwise: no word in common, and embeddings (`given`, `stated`,
    normalised) closer than `SAME_VALUE_AT`."""
    apart = np.array([not set(folded_words(o)) & set(folded_words(v)) for o, v in zip(objects, values)], dtype=bool)
    return ((given * stated).sum(axis=1) >= SAME_VALUE_AT) & apart


@dataclass(frozen=True, slots=True)
class Misfit:
    """An object of a kind its relation takes at neither end, and its fit as the relation's object."""

    value: str
    p_fits: float
    relation: str  # the relation's id the classifier knows it as
    # Where the training facts know the value: the relations it is a value of there that this one does not take,
    # and how often, most first.
    known_as: tuple[tuple[str, int], ...] = ()
    # Where the value is a place written with its region (`Gazetteer.region`): that region.
    region: str = ""

    def reason(self) -> str:
        if self.region:
            return (f"{self.value!r} is a place, written with its region ({self.region}), and about {self.p_fits:.0%} "
                    f"of the values the training facts know of {self.relation} are places")
        if self.known_as:
            seen = ", ".join(f"{relation} ({count})" for relation, count in self.known_as[:3])
            return (f"{self.value!r} is not of a kind the relation takes: the training facts know it mostly as the "
                    f"value of {seen}, relations whose values {self.relation} takes at neither end")
        return (f"{self.value!r} is not of a kind the relation takes (P(fits) {self.p_fits:.3f} as the object of "
                f"{self.relation}, and the triple read backwards fits no better)")


@dataclass(frozen=True)
class KindModel:
    coef: np.ndarray  # (relations, dims): one class a relation
    intercept: np.ndarray
    kinds: dict[str, list[int]]  # relation id -> the classes of its objects' kind
    subject_kinds: dict[str, list[int]]  # relation id -> the classes whose objects are of its subjects' kind
    thresholds: dict[str, float]  # relation id -> P(fits) under which an object does not fit
    same_kind_at: float  # the overlap of two values' kinds (`kind_overlap`) under which they are of two kinds
    # relation id -> the classes whose values it takes, as its objects or (read backwards) as its subjects
    compatible: dict[str, list[int]]
    # a value the training facts know (`label_key`) -> the classes it is a value of there, and how often
    known: dict[str, dict[int, int]]

    def known_fit(self, relation: str, value: str) -> bool | None:
        """Whether the training facts know `value` mostly (`KNOWN_SHARE` of its facts) as the value of relations
        whose values the relation takes; None where none knows it. One fact among many is no kind: "New York City"
        is the capital of something once and a location 429 times, and no spouse."""
        seen = self.known.get(label_key(value))
        if not seen:
            return None
        taken = set(self.compatible[relation])
        return sum(n for c, n in seen.items() if c in taken) >= KNOWN_SHARE * sum(seen.values())

    def known_misfit(self, relation: str, value: str, fit: float) -> bool:
        """Whether the facts know `value` mostly as the value of relations this one does not take, and its name,
        which fits the relation at `fit`, does not read as the relation's kind more likely than not: then it is a
        name two things bear ("Cher", a singer and a French département; "Prince")."""
        return self.known_fit(relation, value) is False and fit < max(self.thresholds[relation], AMBIGUOUS_NAME)

    def known_as(self, value: str, relation: str) -> tuple[tuple[str, int], ...]:
        """The relations (ids) whose values `relation` does not take that the training facts know `value` as a value
        of, and how often, most first."""
        classes = sorted(self.kinds)
        taken = set(self.compatible[relation])
        seen = {c: n for c, n in self.known.get(label_key(value), {}).items() if c not in taken}
        return tuple((classes[c], n) for c, n in sorted(seen.items(), key=lambda item: (-item[1], item[0])))


@dataclass(frozen=True)
class ValueKinds:
    keys: dict[str, str]  # relation key (id, lower-cased label or alias) -> relation id
    model: KindModel
    fingerprint: str

    @staticmethod
    def open(folder: Path) -> ValueKinds:
        from safetensors.numpy import load_file

        card_path, weights_path, known_path = folder / CARD_FILE, folder / WEIGHTS_FILE, folder / KNOWN_FILE
        for path in (card_path, weights_path):
            if not path.exists():
                raise DataError(path, "no value-kind model here: `agentkgv train-value-kinds` writes it")
        if not known_path.exists():
            raise DataError(known_path, "a value-kind model made before its table of known values: retrain it with "
                                        "`agentkgv train-value-kinds`")
        weights = load_file(str(weights_path))
        try:
            known = {str(name): {int(c): int(n) for c, n in seen.items()}
                     for name, seen in json.loads(gzip.decompress(known_path.read_bytes())).items()}
        except (OSError, EOFError, zlib.error, json.JSONDecodeError, TypeError, ValueError, AttributeError) as error:
            raise DataError(known_path, f"not a table of known values: {error!r}") from None
        try:
            card = json.loads(card_path.read_text(encoding="utf-8"))
            lists = {name: {p: [int(j) for j in kind] for p, kind in card[name].items()}
                     for name in ("kinds", "subject_kinds", "compatible")}
            model = KindModel(weights["coef"].astype(np.float32), weights["intercept"].astype(np.float32),
                              lists["kinds"], lists["subject_kinds"],
                              {p: float(t) for p, t in card["thresholds"].items()}, float(card["same_kind_at"]),
                              lists["compatible"], known)
            keys = {str(k): str(v) for k, v in card["keys"].items()}
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as error:
            raise DataError(card_path, f"not a value-kind card: {error!r}") from None
        classes = len(model.kinds)
        if set(model.compatible) != set(model.kinds) or any(
                j >= classes for kind in model.compatible.values() for j in kind):
            raise DataError(card_path, "not a value-kind card: `compatible` names other relations than `kinds`")
        if any(c >= classes for seen in known.values() for c in seen):
            raise DataError(known_path, f"not a table of known values for this card's {classes} relations")
        digest = hashlib.sha256(card_path.read_bytes() + weights_path.read_bytes()
                                + known_path.read_bytes()).hexdigest()[:16]
        return ValueKinds(keys, model, digest)

    def relation(self, triple: Triple) -> str | None:
        return by_predicate(self.keys, triple, None)

    def could_replace(self, claims: list[Triple], values: list[str]) -> list[bool]:
        """Whether each value a passage states could stand where its claim's object stands: of the object's kind
        (for any relation: "Jerusalem" is no value of what "Judaism" is a value of, "Bayern Munich" none of what
        "midfielder" is), taken by the relation as its object where the relation is judged, and not the object
        written otherwise (`differs`). What a stated value must pass before it contradicts."""
        m = self.model
        if not claims:
            return []
        objects = [t.object for t in claims]
        given, stated = _embedded(objects), _embedded(values)
        alike = (kind_overlap(m.coef, m.intercept, given, stated) >= m.same_kind_at) & ~_same_values(
            objects, values, given, stated)
        asked = [(i, r) for i, t in enumerate(claims) if (r := self.relation(t)) is not None and r in m.kinds]
        if asked:
            fits = kind_fit(m.coef, m.intercept, stated[[i for i, _ in asked]], [m.kinds[r] for _, r in asked])
            for (i, r), p in zip(asked, fits):
                alike[i] &= bool(p >= m.thresholds[r])
        return [bool(a) for a in alike]

    @staticmethod
    def differs(claims: list[Triple], values: list[str]) -> list[bool]:
        """Whether each value is another than its claim's object, not the object written otherwise (`SAME_VALUE_AT`):
        "Jewish" where the claim is of Judaism states no other religion."""
        if not claims:
            return []
        objects = [t.object for t in claims]
        return [not same for same in _same_values(objects, values, _embedded(objects), _embedded(values))]

    def _ends(self, triples: list[Triple]) -> list[tuple[int, str, np.ndarray, np.ndarray]]:
        """For each triple of a relation the model judges: its index, the relation, and the classifier's distribution
        over the relations for its object and for its subject."""
        m = self.model
        asked = [(i, r) for i, t in enumerate(triples) if (r := self.relation(t)) is not None and r in m.kinds]
        if not asked:
            return []
        # One batch for both ends: the encoder's cost is per call as much as per name.
        both = relation_softmax(m.coef, m.intercept, _embedded([triples[i].object for i, _ in asked]
                                                               + [triples[i].subject for i, _ in asked]))
        return [(i, r, p, q) for (i, r), p, q in zip(asked, both[:len(asked)], both[len(asked):])]

    @functools.cached_property
    def place_shares(self) -> dict[str, float]:
        """Of each relation that takes names, the share of its known values the gazetteer knows as places, one more of
        each kind counted (so that no share is 0: a P(true) of its own)."""
        places, named, total = Counter[int](), Counter[int](), Counter[int]()
        for name, seen in self.model.known.items():
            place = gazetteer().lie_in(name) is not None
            for c in seen:
                total[c] += 1
                places[c] += place
                named[c] += name[:1].isalpha()
        classes = sorted(self.model.kinds)
        return {classes[c]: (places[c] + 1) / (n + 2) for c, n in total.items() if named[c] >= NAMED_SHARE * n}

    def _written_as_place(self, relation: str, value: str) -> str:
        """The region a place is written with where the relation takes no places (`PLACE_SHARE`), else ""."""
        # A value with no comma is no town with its region: the shares (a gazetteer look-up of every known value)
        # are counted only where one is asked.
        if (relation in TITLED or "," not in value or not value[:1].isupper()
                or self.place_shares.get(relation, 1.0) >= PLACE_SHARE):
            return ""
        return gazetteer().region(value) or ""

    def misfits(self, triples: list[Triple]) -> list[Misfit | None]:
        """For each triple, its object where the relation read from neither end takes it, else None. A town written
        with its region is a place whatever its name reads as ("Winterset, Iowa" fits `author` at 0.22, above its
        threshold): no value of a relation that takes no places, its P(true) the share of places among its values."""
        m = self.model
        found: list[Misfit | None] = [None] * len(triples)
        for i, r, p, q in self._ends(triples):
            at, as_object, value = m.thresholds[r], float(p[m.kinds[r]].sum()), triples[i].object
            backwards = p[m.subject_kinds[r]].sum() >= at and q[m.kinds[r]].sum() >= at
            # What the facts know of the value outweighs what its name reads as, either way.
            known = m.known_fit(r, value)
            if m.known_misfit(r, value, as_object):
                found[i] = Misfit(value, as_object, r, m.known_as(value, r))
            elif known is None and as_object < at and not backwards:
                found[i] = Misfit(value, as_object, r)
            elif known is not True and not backwards and (region := self._written_as_place(r, value)):
                found[i] = Misfit(value, self.place_shares[r], r, region=region)
        return found

    def ends(self, triples: list[Triple]) -> list[tuple[str, bool] | None]:
        """For each triple, the relation as the model knows it (its id) and whether the graph names it from the other
        end than the facts do (FactBench's `author`, from the writer to the book): each end fits the other's kind (at
        the relation's threshold, as `misfits` reads a triple backwards), and more likely than its own, an end's fit
        being the share of its distribution on the kind: "Hugh Grant" is no book, however little "Amy Spanger" reads as
        one. None for a relation the model does not judge."""
        m = self.model
        found: list[tuple[str, bool] | None] = [None] * len(triples)
        for i, r, p, q in self._ends(triples):
            backwards = p[m.subject_kinds[r]].sum() * q[m.kinds[r]].sum()
            fits = min(p[m.subject_kinds[r]].sum(), q[m.kinds[r]].sum()) >= m.thresholds[r]
            found[i] = (r, bool(fits and backwards > p[m.kinds[r]].sum() * q[m.subject_kinds[r]].sum()))
        return found


def save_value_kinds(folder: Path, keys: dict[str, str], model: KindModel, report: dict) -> None:
    from safetensors.numpy import save_file

    folder.mkdir(parents=True, exist_ok=True)
    save_file({"coef": np.ascontiguousarray(model.coef), "intercept": np.ascontiguousarray(model.intercept)},
              str(folder / WEIGHTS_FILE))
    card = {"report": report, "keys": keys, "kinds": model.kinds, "subject_kinds": model.subject_kinds,
            "compatible": model.compatible,
            "thresholds": {p: round(t, 5) for p, t in model.thresholds.items()}, "same_kind_at": model.same_kind_at}
    (folder / CARD_FILE).write_text(json.dumps(card, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    known = json.dumps(model.known, sort_keys=True, separators=(",", ":")).encode("utf-8")
    (folder / KNOWN_FILE).write_bytes(gzip.compress(known, mtime=0))
