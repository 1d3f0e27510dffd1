"""What a triple claims, read before any passage: its kind, and where a passage states its object or another.

A real graph holds more than sentences: labels, dates, numbers, categories, links. Each kind is read by a
small named rule (`KINDS`, the first that applies wins):
- `NotCheckable`: an image or web link written as one, an internal identifier, a graph's auxiliary node (DBpedia's
  `Jimmy_Wales__8`, a career station). No text can check it: it is reported as not checkable, never false.
- `Label`: a name of the subject (`rdfs:label`, `name`, `alias`). Checked against the subject's other
  names and the forms names take (`Wilder, Billy`, `Billy_Wilder`, `Paris (France)`) before any passage.
- `Category`: `Category:Films set in the 1890s` is read as the statement it names, "is a film set in the 1890s".
- `DateClaim`, `NumberClaim`: compared as values (reader_agent/values.py): a passage writing the same date or the
  same number within a tolerance states the object, and its surface is marked as the object's.
- `Entity` otherwise: the object is a name, matched by its label and aliases.

`Claim.others_in` gives the dates and numbers a passage writes other than the claim's, which the agent reads
as the triple with that value (reader_agent/agent.py): the reader's support for another value is a contradiction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import Enum
from typing import Protocol
from urllib.parse import urlsplit

from agentkgv.data.rdf_graphs import OPAQUE_NAME
from agentkgv.data.records import Triple
from agentkgv.data.text import folded_words, without_disambiguation
from agentkgv.graph.values import AUXILIARY_NODE, iri_class
from agentkgv.reader_agent.values import Date, Number, dates_in, numbers_in, parse_date, parse_number


class Kind(str, Enum):
    ENTITY = "entity"
    DATE = "date"
    NUMBER = "number"
    LABEL = "label"
    CATEGORY = "category"
    NOT_CHECKABLE = "not checkable"


def _predicate_words(triple: Triple) -> set[str]:
    """The predicate's words, a camel-cased or IRI-local name split (`wikiPageID` -> wiki, page, id)."""
    name = re.sub(r"([a-z])([A-Z])", r"\1 \2", triple.predicate.rsplit("#", 1)[-1].rsplit("/", 1)[-1])
    return set(folded_words(name.replace("_", " ")))


_URL = re.compile(r"^(?:https?|ftp)://|^www\.|\.(?:jpe?g|png|gif|svg|tiff?|webp|pdf)$", re.IGNORECASE)
_LINK_WORDS = {"image", "thumbnail", "depiction", "logo", "homepage", "website", "url", "uri", "iri", "link",
               "id", "identifier", "isbn", "issn", "doi", "viaf", "sameas", "seealso", "caption", "signature"}
_LABEL_WORDS = ({"label"}, {"name"}, {"alias"}, {"nickname"}, {"altlabel"}, {"preflabel"}, {"alt", "label"},
                {"pref", "label"}, {"also", "known", "as"},
                {"birth", "name"}, {"full", "name"}, {"alternative", "name"}, {"official", "name"})
_CATEGORY = re.compile(r"^category:\s*", re.IGNORECASE)
_DATE_WORDS = {"date", "year", "born", "died", "birth", "death", "inception", "founded", "established",
               "dissolved", "released", "published", "publication", "start", "end", "time", "opening", "since"}


class KindRule(Protocol):
    kind: Kind

    def applies(self, triple: Triple) -> bool: ...


class NotCheckable:
    kind = Kind.NOT_CHECKABLE

    def applies(self, triple: Triple) -> bool:
        # The object as read: an entity of a graph is its label (an IRI only where it has none), so only a
        # link or a file stands here as a URL.
        return bool(_URL.search(triple.object.strip())) or bool(
            _predicate_words(triple) & _LINK_WORDS and any(c.isdigit() for c in triple.object)) or _unnamed(triple) or (
            triple.object_id is not None and iri_class(triple.object_id) == AUXILIARY_NODE)


_WEB_ADDRESS = re.compile(r"^(?:https?://|www\.)\S+$|^[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:/\S*)?$", re.IGNORECASE)


def links_out(triple: Triple) -> bool:
    """Whether the object is an IRI on another host than the subject's: a link out of the graph (a homepage), which
    the graph names by its host (`marrowick_quartet.example.com`). A page may state it ("Its official website is
    https://…"), but only a web address can be another value of it."""
    try:
        hosts = [urlsplit(iri).hostname if iri and iri.startswith(("http://", "https://")) else None
                 for iri in (triple.subject_id, triple.object_id)]
    except ValueError:  # a malformed host (an unmatched bracket) is no link a page could be said to name either
        return False
    return None not in hosts and hosts[0].removeprefix("www.") != hosts[1].removeprefix("www.")


def web_address(text: str) -> bool:
    """Whether `text` is written as a web address: a URL, or a host name (`quillmarsh-bank.example.net`)."""
    return bool(_WEB_ADDRESS.match(text.strip()))


def _unnamed(triple: Triple) -> bool:
    """A label of a term the graph names no other way (an id such as `Q42`, a blank node): nothing to check it
    against, and no passage names an id."""
    return (Label().applies(triple) and not triple.subject_aliases and bool(OPAQUE_NAME.fullmatch(triple.subject))
            and not same_name(triple.object, triple.subject))


class Label:
    kind = Kind.LABEL

    def applies(self, triple: Triple) -> bool:
        words = _predicate_words(triple)
        return any(words == names or words == names | {"rdfs"} or words == names | {"skos"} for names in _LABEL_WORDS)


class Category:
    kind = Kind.CATEGORY

    def applies(self, triple: Triple) -> bool:
        iri = triple.rdf.predicate if triple.rdf is not None else ""
        return bool(_CATEGORY.match(triple.object)) or iri.endswith("/dc/terms/subject>") or triple.predicate in (
            "dct:subject", "dcterms:subject")


class DateClaim:
    kind = Kind.DATE

    def applies(self, triple: Triple) -> bool:
        date = parse_date(triple.object)
        # A bare year is a date only where the relation is about time; elsewhere (an elevation of 1450) a number.
        return date is not None and (date.month is not None or bool(_predicate_words(triple) & _DATE_WORDS))


class NumberClaim:
    kind = Kind.NUMBER

    def applies(self, triple: Triple) -> bool:
        return parse_number(triple.object) is not None


class Entity:
    kind = Kind.ENTITY

    def applies(self, triple: Triple) -> bool:
        return True


KINDS: tuple[KindRule, ...] = (NotCheckable(), Label(), Category(), DateClaim(), NumberClaim(), Entity())


def name_forms(name: str) -> tuple[str, ...]:
    """The forms a name takes in passages: `Billy_Wilder` as words, `Paris (France)` without its
    disambiguation, `Wilder, Billy` turned round."""
    plain = " ".join(name.replace("_", " ").split())
    forms = [plain, without_disambiguation(plain)]
    last, comma, first = forms[-1].partition(", ")
    if comma and first and " " not in last:
        forms.append(f"{first} {last}")
    return tuple(dict.fromkeys(f for f in forms if f))


def same_name(a: str, b: str) -> bool:
    return any(folded_words(x) == folded_words(y) for x in name_forms(a) for y in name_forms(b))


@dataclass(frozen=True)
class Claim:
    """A triple as the reader agent reads it: `triple` (a category rewritten as its statement), its kind,
    and for a date or number claim the value."""

    triple: Triple
    kind: Kind
    date: Date | None = None
    number: Number | None = None

    @staticmethod
    def of(triple: Triple) -> Claim:
        kind = next(rule.kind for rule in KINDS if rule.applies(triple))
        if kind is Kind.CATEGORY:
            return Claim(_as_statement(triple), kind)
        if kind is Kind.DATE:
            return Claim(triple, kind, date=parse_date(triple.object))
        if kind is Kind.NUMBER:
            return Claim(triple, kind, number=parse_number(triple.object))
        return Claim(triple, kind)

    @property
    def checkable(self) -> bool:
        return self.kind is not Kind.NOT_CHECKABLE

    def named_by_subject(self) -> bool:
        """A label claim the subject's own names settle: the object is one of them, written as names are."""
        return self.kind is Kind.LABEL and any(same_name(self.triple.object, n) for n in self.triple.subject_names)

    def names_itself(self) -> bool:
        """An entity claim whose object is its subject, one term by its graph's identifiers (`Arthur C. Clarke |
        notable work | Arthur C. Clarke`): any passage naming the subject names "both", and states no relation of the
        thing to itself by doing so. Names alone cannot say it: Nokia, the company, was founded in Nokia, the town,
        and "Cher (album)" is by Cher."""
        t = self.triple
        same = (t.rdf.subject == t.rdf.object if t.rdf is not None
                else t.subject_id is not None and t.subject_id == t.object_id)
        return self.kind is Kind.ENTITY and same

    def forms_in(self, text: str) -> tuple[str, ...]:
        """The surfaces in `text` that write this claim's value (a date or number claim), to be marked as
        the object's."""
        if self.date is not None:
            return tuple(s for s, d in dates_in(text) if self.date.agrees(d))
        if self.number is not None:
            return tuple(s for s, n in numbers_in(text) if self.number.agrees(n))
        return ()

    def for_passage(self, text: str) -> Triple:
        """The triple with the object's forms in this passage among its names."""
        forms = self.forms_in(text)
        return replace(self.triple, object_aliases=(*self.triple.object_aliases, *forms)) if forms else self.triple

    def others_in(self, text: str, limit: int) -> list[str]:
        """Dates (numbers) `text` writes other than this date (number) claim's: the first `limit`. A name in
        the object's place is another value only for a relation with one (reader_agent/relation_facts.py)."""
        if self.date is not None:
            return [s for s, d in dates_in(text) if self.date.agrees(d) is False][:limit]
        if self.number is not None:
            return [s for s, n in numbers_in(text) if self.number.agrees(n) is False][:limit]
        return []

    def with_object(self, value: str) -> Triple:
        """The same subject and relation with another object: the statement a passage makes instead."""
        return replace(self.triple, object=value, object_aliases=(), object_id=None, rdf=None)


def _as_statement(triple: Triple) -> Triple:
    """`Category:Films set in the 1890s` -> (subject, is a, film set in the 1890s)."""
    words = _CATEGORY.sub("", triple.object).replace("_", " ").split()
    if words:
        head, lower = words[0], words[0].lower()
        if lower.endswith("ies") and lower != "series":
            words[0] = head[:-3] + "y"
        elif lower.endswith("s") and not lower.endswith(("ss", "us", "is", "series")):
            words[0] = head[:-1]
    return replace(triple, predicate="is a", object=" ".join(words), predicate_id=None, object_aliases=(),
                   object_id=None)
