"""What kind of value an RDF term is, read from the term alone: the lexical classes a graph's profile counts
per predicate (graph/profile.py), and the malformed values no predicate should take.

A class is a short phrase a reason can quote ("an image size", "a cut-off IRI"). IRIs are classed by their
form: an entity IRI (named by its host, so that a predicate's links into the graph and its links to web
pages count apart), a category, an auxiliary node, or a cut-off IRI. Literals by their datatype where it
says more than a string, else by the shape of their text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

TermKind = Literal["iri", "literal", "bnode"]

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
NUMERIC_DATATYPES = {f"{XSD}{name}" for name in ("integer", "decimal", "double", "float", "int", "long", "short",
                                            "nonNegativeInteger", "positiveInteger", "negativeInteger",
                                            "nonPositiveInteger", "unsignedInt", "unsignedLong", "byte")}
_DATATYPE_CLASS = {f"{XSD}date": "a date", f"{XSD}dateTime": "a date", f"{XSD}gYear": "a year",
                   f"{XSD}gYearMonth": "a year and month", f"{XSD}gMonthDay": "a month and day",
                   f"{XSD}boolean": "a yes or no", f"{XSD}anyURI": "a URL",
                   "http://www.w3.org/1999/02/22-rdf-syntax-ns#HTML": "a text",
                   "http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral": "a text"}


@dataclass(frozen=True, slots=True)
class Term:
    """One RDF term as a graph states it: its kind, its text (an IRI, a literal's lexical form, a blank node's
    label) and a literal's datatype IRI."""

    kind: TermKind
    value: str
    datatype: str | None = None

    @property
    def host(self) -> str:
        """An IRI's scheme and host (`http://dbpedia.org`); empty for any other term."""
        if self.kind != "iri":
            return ""
        parts = urlsplit(self.value)
        return f"{parts.scheme}://{parts.netloc}" if parts.netloc else parts.scheme


# Classes a value of any predicate is wrong to have: leftovers of extraction, not values.
CUT_OFF_IRI = "a cut-off IRI"
PLACEHOLDER = "a placeholder"
MARKUP = "wiki markup"
YEARS_RUN_TOGETHER = "two years run together"
MALFORMED = frozenset({CUT_OFF_IRI, PLACEHOLDER, MARKUP})
# DBpedia's `Jimmy_Wales__8`: a node of the subject's own record (a career station, a term of office), no value.
AUXILIARY_NODE = "an auxiliary node"

# What is left of `http`/`https` when an IRI's first characters are cut off.
_CUT_SCHEMES = frozenset({"ttp", "tp", "p", "ttps", "tps", "ps", "s", "htp", "htps", "hhttp"})
_CUT_OFF = re.compile(r"^(?:ttps?|tps?|ps?|s|htps?|hhttps?)://\S+$|^//\S+$", re.IGNORECASE)
# As written: `None` may be a band and `NA` a country code, `none` and `n/a` are no values.
_PLACEHOLDERS = frozenset({"", "*", "**", "?", "??", "-", "--", "—", "–", "n/a", "N/A", "none", "null", "nil",
                           "unknown", "Unknown", "_unknown", "tba", "TBA", "tbd", "TBD", "tbc", "auto", "todo",
                           "xxx", "..."})
_MARKUP = re.compile(r"\[\[|\]\]|\{\{|\}\}|<ref[ >]|</?(?:div|span|br|small|ref|sup|sub)\b")
_YEAR = re.compile(r"^(?:1[0-9]|20)\d\d$")
_YEARS_RUN_TOGETHER = re.compile(r"^((?:1[5-9]|20)\d\d)((?:1[5-9]|20)\d\d)$")
_YEAR_RANGE = re.compile(r"^(?:1[0-9]|20)\d\d\s*[-–—/]\s*(?:(?:1[0-9]|20)?\d\d|present)$", re.IGNORECASE)
_ISO_DATE = re.compile(r"^-?\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z?)?$")
_YEAR_MONTH = re.compile(r"^\d{4}-\d{2}$")
_MONTH_DAY = re.compile(r"^--\d{2}-\d{2}$")
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_WORDED_DATE = re.compile(rf"^(?:\d{{1,2}}\s+(?:{_MONTHS})\.?,?\s+\d{{3,4}}|(?:{_MONTHS})\.?\s+\d{{1,2}},?\s+\d{{3,4}}"
                          rf"|(?:{_MONTHS})\.?\s+\d{{4}})$", re.IGNORECASE)
_NUMBER = re.compile(r"^[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?$")
_IMAGE_SIZE = re.compile(r"^(?:\d+\s*x\s*)?\d+\s*px$|^x\d+px$", re.IGNORECASE)
# A number and a unit or two: units are lower case, short capitals (`1.76 m`, `3 km²`, `5 MW`, `5 kWh`) or one of the
# units written capitalised (`100 Mbit/s`, `13.8 Gyr`, `90 Min`), so that a name that starts with a number (`3 Doors
# Down`) is a name. A unit ends where lower-case letters stop: a word written on to the number (`360Commerce`, `7
# Eleven`) is a name, not a number with a unit.
_CAPITALISED_UNITS = (r"[KMGT]i?(?:b(?:it|ps|yte)s?|B(?:ps|ytes?))|[KMGT]?Flops|[KMG]hz|Btu|[GM]yr|Mya|Mio|Mln|Mrd|Min|"
                      r"Hrs?|Sec|Mph|Kph|Lbs?|Kgs?|Yds?|Miles?")
_QUANTITY = re.compile(r"^(?:[$€£¥]\s?)?[-+−]?[\d,.]*\d(?:\.\d+)?\s*(?:(?:[a-z%°€$£²³/.][a-z%°²³/.]{0,11}|"
                       rf"(?:{_CAPITALISED_UNITS})(?:/[a-z]+)?|[A-Z]{{1,3}}[a-z]?)(?![a-z])\.?\s*){{1,2}}$")
_COLOUR = re.compile(r"^#?(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})$")
_URL = re.compile(r"^(?:https?|ftp)://\S+$", re.IGNORECASE)
_CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,11}$")
_AUXILIARY = re.compile(r"__\d+$")
# MediaWiki's namespaces, whose pages are not the things a graph's entities are (`Category:Road_tunnels`).
_NAMESPACED = re.compile(r"^(Category|File|Image|Template|Portal|Special|Wikipedia|Help|Talk|User|Module|Draft):\S")


def local_part(iri: str) -> str:
    return re.split(r"[/#]", iri.rstrip("/#"))[-1]


def vocabulary(iri: str) -> str:
    """The namespace an IRI's local part is named in (`http://dbpedia.org/property/` of DBpedia's raw keys); "" for a
    name without one (a bare name, a URN, a host alone)."""
    space = iri[:len(iri.rstrip("/#")) - len(local_part(iri))]
    return "" if space.endswith("://") else space


def loops_back(subject: Term, obj: Term) -> bool:
    """Whether the object is the subject itself, or a node made for it (DBpedia's `Jimmy_Wales__8` of
    `Jimmy_Wales`, which holds one of his careers): either way the triple states nothing of another thing."""
    if subject == obj:
        return True
    return (subject.kind == obj.kind == "iri" and bool(_AUXILIARY.search(obj.value))
            and _AUXILIARY.sub("", obj.value) == subject.value)


def iri_class(iri: str) -> str:
    """An IRI's class: cut off, auxiliary (DBpedia's `Person__3` nodes), a namespaced page (`Category:…`),
    else an entity of its host."""
    scheme = iri.split(":", 1)[0].lower() if ":" in iri else ""
    if not scheme or scheme in _CUT_SCHEMES or (scheme in ("http", "https") and not urlsplit(iri).netloc):
        return CUT_OFF_IRI
    local = local_part(iri)
    if _AUXILIARY.search(local):
        return AUXILIARY_NODE
    namespaced = _NAMESPACED.match(local)
    if namespaced:
        return f"a {namespaced.group(1)} page"
    return f"an IRI of {Term('iri', iri).host}"


def text_class(text: str) -> str:
    """A literal's class from its text alone."""
    value = " ".join(text.split())
    if value in _PLACEHOLDERS:
        return PLACEHOLDER
    if _MARKUP.search(value):
        return MARKUP
    if _URL.match(value):
        return "a URL"
    if _CUT_OFF.match(value) and " " not in value:
        return CUT_OFF_IRI
    years = _YEARS_RUN_TOGETHER.match(value)
    if years and years.group(1) <= years.group(2):
        return YEARS_RUN_TOGETHER
    if _YEAR.match(value):
        return "a year"
    if _YEAR_RANGE.match(value):
        return "a range of years"
    if _ISO_DATE.match(value) or _WORDED_DATE.match(value):
        return "a date"
    if _YEAR_MONTH.match(value):
        return "a year and month"
    if _MONTH_DAY.match(value):
        return "a month and day"
    if _NUMBER.match(value.replace(" ", "")):
        return "a number"
    if _IMAGE_SIZE.match(value):
        return "an image size"
    # Letters alone are a colour only as few distinct ones (`ffffff`, not `decade`).
    if _COLOUR.match(value) and (any(c.isdigit() for c in value) or len(set(value.lower().lstrip("#"))) <= 2):
        return "a colour code"
    if _QUANTITY.match(value) and any(c.isdigit() for c in value):
        return "a quantity with a unit"
    words = value.split()
    if len(words) == 1 and _CODE.match(value) and (len(value) <= 3 or not value[1:].islower()):
        return "a code"
    # A name starts with a capital, or with a number before capitalised words (`3 Doors Down`).
    if len(words) <= 6 and len(value) <= 60 and (value[:1].isupper() or value[:1].isdigit() and
                                                  any(word[:1].isupper() for word in words[1:])):
        return "a list of names" if value.count(",") >= 2 or ";" in value else "a name"
    return "a text"


# Classes of one family: a predicate of names takes codes (call signs), titles and lists of names as well.
# Two years run together (`19851990`) are also a plain number: wrong where a predicate takes years, not where
# it takes populations.
_FAMILIES = {"a code": "a name", "a text": "a name", "a list of names": "a name", YEARS_RUN_TOGETHER: "a number"}


def family(kind: str) -> str:
    """The family of a value class, the level at which a class counts as rare for a predicate."""
    return _FAMILIES.get(kind, kind)


def value_class(term: Term) -> str:
    """The class of an object (or subject) term."""
    if term.kind == "bnode":
        return "a blank node"
    if term.kind == "iri":
        return iri_class(term.value)
    if term.datatype in NUMERIC_DATATYPES:
        return "a number"
    if term.datatype in _DATATYPE_CLASS:
        return _DATATYPE_CLASS[term.datatype]
    return text_class(term.value)


def number(term: Term) -> float | None:
    """A literal's numeric value, where it is a plain number."""
    if term.kind != "literal":
        return None
    text = term.value.strip().replace(",", "").replace("−", "-")
    if not _NUMBER.match(text):
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None
