"""Dates and numbers as values: found in a passage, compared with a claim's at the claim's precision.

A date claim `1960-04-26` is stated by "born 26 April 1960" and contradicted by "born 3 May 1961"; a
number claim `1,250 m` is stated by "1250 metres" and contradicted by "2,000 m". Neither is a name a
string match finds, so the reader would never see the claim's object marked in the passage. Written by hand:
dateutil parses one whole string, not the dates inside a sentence, and no offline library finds values in
running text and compares them at a precision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MONTHS = {name: number for number, names in enumerate(
    (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
     ("december", "dec")), start=1) for name in names}
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>1\d{3}|20\d{2})"
# Most specific first: where two overlap, the longer match (a whole date) wins over its year alone.
_DATE_PATTERNS = [re.compile(p, re.IGNORECASE) for p in (
    rf"\b{_YEAR}-(?P<month>\d{{1,2}})-(?P<day>\d{{1,2}})\b",
    rf"\b{_DAY}\s+{_MONTH},?\s+{_YEAR}\b",
    rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b",
    rf"\b{_MONTH},?\s+{_YEAR}\b",
    rf"\b{_YEAR}\b",
)]
# A whole object string that is a date: ISO with an optional time (xsd:dateTime, Wikidata's `+1960-…`).
_ISO = re.compile(r"^\+?(?P<year>\d{4})(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?(?:T[\d:.]+)?Z?$")
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
# Units written otherwise in text, by the form they are compared in; a word that is no unit is not read as one.
_UNITS = {"km²": "km²", "km2": "km²", "sq km": "km²", "square kilometres": "km²", "square kilometers": "km²",
          "kilometres": "km", "kilometers": "km", "kilometre": "km", "kilometer": "km", "km": "km",
          "metres": "m", "meters": "m", "metre": "m", "meter": "m", "m": "m", "feet": "ft", "foot": "ft", "ft": "ft",
          "miles": "mi", "mile": "mi", "mi": "mi", "kilograms": "kg", "kilogram": "kg", "kg": "kg",
          "percent": "%", "%": "%", "°c": "°C", "°f": "°F", "°": "°",
          "minutes": "min", "minute": "min", "mins": "min", "min": "min"}
# Marks that make a figure a sum of money or a temperature: a firm's "$107,843" a year is no number of employees,
# "9°C" no number of rainy days. A bare "°" is as often an angle (a latitude), so it is a unit, no such mark.
_CURRENCIES = {"$": "$", "€": "€", "£": "£", "¥": "¥", "₹": "₹", "₩": "₩"}
_QUANTITY_MARKS = frozenset({*_CURRENCIES.values(), "°C", "°F"})
_NUMBER = re.compile(r"(?<![\w.])(?:(?:[A-Z]{1,3})?(?P<currency>[$€£¥₹₩])\s?)?"
                     r"(?P<number>[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d{1,3}(?!\w))?)"
                     r"(?:\s*(?P<scale>thousand|million|billion))?"
                     r"(?:\s*(?P<unit>" + "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
                     + r")(?!\w))?", re.IGNORECASE)
# How close a number in a passage must be to the claim's to state it: half a unit of the last digit either
# writes (1.2 million is 1.15 to 1.25 million, so it states 1,234,567), and for a large figure this share of it
# (a population of 1,230,000 for 1,234,567). A small integer is written exactly: 1991 is not 1990.
NUMBER_TOLERANCE = 0.005
LARGE = 10_000
# Two figures this many times apart are not two values of one quantity but two quantities: a book's 408 pages
# and its catalogue number 294081, a firm's 127,086 employees and the year 2012 its page names.
SAME_QUANTITY_RATIO = 20.0


@dataclass(frozen=True, slots=True)
class Date:
    """A calendar date known to the year, the month or the day."""

    year: int
    month: int | None = None
    day: int | None = None

    def agrees(self, other: Date) -> bool | None:
        """True where `other` states this date at this date's precision, False where it states another,
        None where it is too coarse to tell (a year for a full date with that year)."""
        mine, theirs = (self.year, self.month, self.day), (other.year, other.month, other.day)
        for a, b in zip(mine, theirs):
            if a is None:
                return True
            if b is None:
                return None
            if a != b:
                return False
        return True

    def forms(self) -> tuple[str, ...]:
        """How prose writes it."""
        if self.month is None:
            return (str(self.year),)
        month = MONTH_NAMES[self.month - 1]
        if self.day is None:
            return (f"{month} {self.year}",)
        return (f"{self.day} {month} {self.year}", f"{month} {self.day}, {self.year}",
                f"{self.year}-{self.month:02d}-{self.day:02d}")


def _date_of(match: re.Match) -> Date | None:
    groups = match.groupdict()
    month = groups.get("month")
    month_number = None if month is None else int(month) if month.isdigit() else MONTHS.get(month.lower().rstrip("."))
    day = int(groups["day"]) if groups.get("day") else None
    # Wikidata writes a date known to the year as 1960-00-00.
    month_number, day = month_number or None, day or None
    if month_number is not None and not 1 <= month_number <= 12 or day is not None and not 1 <= day <= 31:
        return None
    return Date(int(groups["year"]), month_number, day)


def parse_date(text: str) -> Date | None:
    """The date a whole string writes (an object of a graph), or None."""
    text = text.strip()
    iso = _ISO.match(text)
    if iso:
        return _date_of(iso)
    for pattern in _DATE_PATTERNS[:-1]:
        match = pattern.fullmatch(text)
        if match:
            return _date_of(match)
    return None


def dates_in(text: str) -> list[tuple[str, Date]]:
    """Every date a passage writes, with its surface; overlapping matches give way to the longer one."""
    taken: list[tuple[int, int]] = []
    found = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            date = _date_of(match)
            if date is not None:
                taken.append(match.span())
                found.append((match.start(), match.group(), date))
    return [(surface, date) for _, surface, date in sorted(found, key=lambda f: f[0])]


@dataclass(frozen=True, slots=True)
class Number:
    value: float
    unit: str = ""
    # Half a unit of the last digit written: 1,250 is 1,249.5 to 1,250.5; 1.2 million 1.15 to 1.25 million.
    half_step: float = 0.0

    def agrees(self, other: Number) -> bool | None:
        """True where `other` is this number within the tolerance, False where it is another, None where
        it need not be a value of the same quantity: the units differ (a length is no count), or one is more than
        `SAME_QUANTITY_RATIO` times the other. Where one only is written as money or a temperature, it may state the
        other (a graph writes a budget bare) but never contradicts it: a salary is no staff count."""
        if self.unit and other.unit and self.unit != other.unit:
            return None
        marked = (self.unit in _QUANTITY_MARKS) != (other.unit in _QUANTITY_MARKS)
        low, high = sorted((abs(self.value), abs(other.value)))
        if high > SAME_QUANTITY_RATIO * max(low, 1.0):
            return None
        relative = NUMBER_TOLERANCE * abs(self.value) if abs(self.value) >= LARGE else 0.0
        tolerance = max(self.half_step, other.half_step, relative)
        agree = abs(self.value - other.value) <= tolerance
        return (agree or None) if marked else agree


def _number_of(match: re.Match) -> Number:
    digits = match.group("number").replace(",", "")
    # A graph's doubles are written in scientific notation: 4.0E7 is 40 million, known to the million.
    mantissa, _, exponent = digits.lower().partition("e")
    scale = _SCALES.get((match.group("scale") or "").lower(), 1.0) * 10.0 ** int(exponent or 0)
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    currency, written = match.group("currency"), match.group("unit")
    unit = _CURRENCIES[currency] if currency else _UNITS[written.lower()] if written else ""
    return Number(float(mantissa) * scale, unit, 0.5 * 10 ** -decimals * scale)


# A running time written in hours and minutes ("1h 36m", "2 hr 5 min"): its minutes, not 36 metres.
_DURATION = re.compile(r"(?<![\w.])(?P<hours>\d{1,2})\s*(?:(?:h|hrs?)\.?|hours?)\s*(?P<minutes>\d{1,2})\s*"
                       r"(?:m|min|mins|minutes?)(?!\w)", re.IGNORECASE)


def _duration_of(match: re.Match) -> Number:
    return Number(60.0 * int(match.group("hours")) + int(match.group("minutes")), "min", 0.5)


def parse_number(text: str) -> Number | None:
    """The number a whole string writes, with its unit if any (`1,250 m`, `3.5 million`), or None."""
    duration = _DURATION.fullmatch(text.strip())
    if duration:
        return _duration_of(duration)
    match = _NUMBER.fullmatch(text.strip())
    return _number_of(match) if match else None


def numbers_in(text: str) -> list[tuple[str, Number]]:
    """Every number a passage writes, with its surface (unit included); a date's year is not a number."""
    years = [(start, end) for pattern in _DATE_PATTERNS[:-1] for start, end in
             (m.span() for m in pattern.finditer(text))]
    durations = list(_DURATION.finditer(text))
    taken = years + [m.span() for m in durations]
    found = [(m.start(), m.group().strip(), _duration_of(m)) for m in durations] + [
        (match.start(), match.group().strip(), _number_of(match)) for match in _NUMBER.finditer(text)
        if not any(start <= match.start() < end for start, end in taken)]
    return [(surface, number) for _, surface, number in sorted(found, key=lambda f: f[0])]
