"""Reader pairs in the forms web pages state facts in, rendered from the reader's own true training facts.

Encyclopedia sentences are what the other pairs teach; a user's documents are mostly web pages, whose
facts stand in key-value runs ("Place of DeathHolmby Hills, Los Angeles"), lists ("Stars: John Cusack,
..."), table rows, and prose set among a page's boilerplate. Each true fact (a triple beside its evidence,
an `evidence` pair of the training split or a corpus) is rendered into one such page about its subject,
beside lines for other relations drawn from other facts, and read in contrastive groups in the spirit of
VitaminC: one page, minimal edits that move it between "states the triple" and "does not":
- `web_evidence`: the page states the triple under a key of its relation (the label or a Wikidata alias) (1);
- `web_value_edit`: the same page with another value of the relation in that line (0): what a one-valued
  relation's contradiction looks like on a page;
- `web_key_edit`: the same page with that line's key another relation's (0): `Place of death: London` does
  not say a birth in London;
- `web_relation_swap`: the same page, the claim under another relation (0): the page names both ends, and
  `place of death` is asked of a `Place of birth` line;
- `web_other_subject`: the same page about another subject of the relation (0).
Prose keeps its sentence and gets its value edit in the sentence, and the relation swap. No claim is made
about a distractor line, so a page may pair a subject with values that are not its own without teaching
anything false.
"""

from __future__ import annotations

import functools
import random
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from agentkgv.core.evidence_view import runs_apart
from agentkgv.data.predicates import PredicateInfo
from agentkgv.data.records import Triple
from agentkgv.data.text import fold, label_key
from agentkgv.train.reader_data import ReaderPair, synonyms

# Between a key and its value, and between lines: "" is the run-on that stripping a page's markup leaves.
KEY_SEPARATORS = (": ", ": ", " ", "\t", " - ", "")
LINE_SEPARATORS = ("\n", "\n", " ", " | ", " · ", "")
BOILERPLATE = ("Skip to main content", "Home", "Menu", "Search", "Share this:", "Facebook Twitter Email",
               "Advertisement", "Related articles", "Read more", "Sign in", "Subscribe to our newsletter",
               "Accept cookies", "Print this page", "Back to top", "Posted by admin", "Comments (0)",
               "All rights reserved.", "Privacy Policy | Terms of Use", "You are here: Home", "Click to enlarge")
KEY_STYLES = (str.capitalize, str.title, str.upper, str.lower)
PAGE_TITLES = ("{s}", "{s} - Biography", "{s} | Facts", "{s} profile", "About {s}", "{s} - Overview")


# A relation stands in for another (a key edit, a relation swap) only if this many facts give it: a rare
# relation seen mostly as a negative would be learned as "false" (reader_corpora.MIN_SWAP_FACTS).
MIN_RIVAL_FACTS = 50


@dataclass(frozen=True, slots=True)
class Fact:
    triple: Triple
    text: str
    title: str = ""


@dataclass(frozen=True, slots=True)
class Page:
    """A rendered page: `lines` of (key, value), the one at `target` stating the fact, its subject in the
    title or in a heading line, and how it is laid out (fixed, so an edit changes only what it edits)."""
    subject: str
    lines: tuple[tuple[str, str], ...]
    target: int
    table: bool
    heading: str  # a PAGE_TITLES entry
    in_title: bool
    key_separator: str
    line_separator: str

    def render(self) -> tuple[str, str]:
        """(title, text): rows as `| key | value |` in a table, else `key<sep>value` runs."""
        if self.table:
            body = self.line_separator.join(f"| {k} | {v} |" for k, v in self.lines)
        else:
            body = ""
            for k, v in self.lines:
                body += _join(body, k, self.line_separator) if body else k
                body += _join(k, v, self.key_separator)
        heading = self.heading.format(s=self.subject)
        return (heading, body) if self.in_title else ("", f"{heading}\n{body}")

    def with_line(self, line: tuple[str, str]) -> Page:
        lines = list(self.lines)
        lines[self.target] = line
        return replace(self, lines=tuple(lines))


def relation_keys(predicates: Mapping[str, PredicateInfo]) -> dict[str, tuple[str, ...]]:
    """The words a page may head a relation's line with: its label, then its aliases of three letters or more
    (`birthplace`, `born in`, `POB`)."""
    return {pid: (info.label, *(a for a in info.aliases if len(a) >= 3)) for pid, info in predicates.items()}


@dataclass(frozen=True)
class _Pools:
    """What pages are drawn from: the words for each relation, the values and subjects each relation takes
    among the facts, the facts themselves (a swapped claim must not be one), and the relations a list may
    hold several values of."""
    keys: Mapping[str, Sequence[str]]
    values: Mapping[str, list[str]]
    subjects: Mapping[str, list[str]]
    known: set[tuple[str, str, str]]
    one_valued: frozenset[str]
    min_rival_facts: int

    def rival(self, triple: Triple, rng: random.Random, sharing_share: float = 0.5) -> str | None:
        """Another relation with enough facts (not a near synonym, nor one a fact gives this pair), a
        `sharing_share` of the time one that takes this very object in some fact (born in / died in a city),
        which only reading the relation tells apart."""
        pid = triple.predicate_id or ""
        others = [r for r, values in self.values.items() if r != pid and not synonyms(r, pid)
                  and len(values) >= self.min_rival_facts
                  and (label_key(triple.subject), r, label_key(triple.object)) not in self.known]
        sharing = [r for r in others if label_key(triple.object) in self.value_keys[r]]
        return rng.choice(sharing if sharing and rng.random() < sharing_share else others) if others else None

    @functools.cached_property
    def value_keys(self) -> dict[str, set[str]]:
        """Each relation's values by label key, built once (every fact asks for its rivals)."""
        return {r: {label_key(v) for v in values} for r, values in self.values.items()}

    def swapped(self, triple: Triple, rival: str) -> Triple:
        return replace(triple, predicate=self.keys[rival][0], predicate_id=rival)

    def rival_key(self, triple: Triple, rival: str, styles: Sequence[Callable[[str], str]],
                  rng: random.Random) -> str | None:
        """A word for `rival` that is no word of the triple's own relation (Wikidata aliases overlap)."""
        own = {label_key(k) for k in self.keys[triple.predicate_id or ""]}
        words = [k for k in self.keys[rival] if label_key(k) not in own]
        return _key(words, styles, rng) if words else None


def web_form_pairs(facts: Sequence[Fact], keys: Mapping[str, Sequence[str]], rng: random.Random,
                   share: float = 1.0, one_valued: frozenset[str] = frozenset(),
                   min_rival_facts: int = MIN_RIVAL_FACTS) -> list[ReaderPair]:
    """A contrastive group of pairs for a `share` of the facts (each triple once); `keys` gives each relation
    id the words a page may name it by (its label first); a relation in `one_valued` is never shown as a list
    of values, and one with fewer than `min_rival_facts` facts never stands in for another. Facts of
    relations without keys are skipped."""
    facts = first_of_each([f for f in facts if f.triple.predicate_id in keys])
    pools = _Pools(keys, defaultdict(list), defaultdict(list), {fact_key(f.triple) for f in facts}, one_valued,
                   min_rival_facts)
    for fact in facts:
        pools.values[fact.triple.predicate_id or ""].append(fact.triple.object)
        pools.subjects[fact.triple.predicate_id or ""].append(fact.triple.subject)
    pairs: list[ReaderPair] = []
    for fact in facts:
        if rng.random() < share:
            pairs += _group(fact, pools, rng)
    return pairs


def first_of_each(facts: Sequence[Fact]) -> list[Fact]:
    """The facts with each triple once (`fact_key`), the first given of each."""
    return list({fact_key(f.triple): f for f in reversed(facts)}.values())[::-1]


def fact_key(triple: Triple) -> tuple[str, str, str]:
    return label_key(triple.subject), triple.predicate_id or "", label_key(triple.object)


def _group(fact: Fact, pools: _Pools, rng: random.Random) -> list[ReaderPair]:
    t, pid = fact.triple, fact.triple.predicate_id or ""
    names = [*t.subject_names, *t.object_names]
    other_value = _other(pools.values[pid], names, rng)
    if rng.random() < 0.25 and _mentioned(t.object, fact.text):
        return _prose_group(fact, other_value, pools, rng)
    value = rng.choice(t.object_aliases) if t.object_aliases and rng.random() < 0.2 else t.object
    listed = [value]
    if pid not in pools.one_valued and rng.random() < 0.25:  # a list: "Stars: A, B, C"
        listed += [v for v in (_other(pools.values[pid], names, rng) for _ in range(rng.randint(2, 5))) if v]
        listed = list({label_key(v): v for v in listed}.values())
        rng.shuffle(listed)
    table = rng.random() < 0.25
    key_separator = rng.choice(KEY_SEPARATORS)
    line_separator = rng.choice(("\n", " ")) if table else rng.choice(LINE_SEPARATORS)
    # A run-on ("Place of DeathHolmby Hills") is what stripping markup leaves of capitalised keys and names.
    styles = (str.capitalize, str.title) if "" in (key_separator, line_separator) else KEY_STYLES
    others = [r for r in pools.values if r != pid and not synonyms(r, pid)]
    lines = [(_key(pools.keys[r], styles, rng), v) for r in rng.sample(others, min(len(others), rng.randint(2, 6)))
             if (v := _other(pools.values[r], names, rng))]
    target = rng.randint(0, len(lines))
    lines.insert(target, (_key(pools.keys[pid], styles, rng), ", ".join(listed)))
    page = Page(t.subject, tuple(lines), target, table, rng.choice(PAGE_TITLES), rng.random() < 0.5,
                key_separator, line_separator)
    pairs = [_pair(page, t, 1.0, "web_evidence")]
    if other_value and not any(_mentioned(other_value, v) or _mentioned(v, other_value) for v in listed):
        edited = ", ".join(other_value if v == value else v for v in listed)
        pairs.append(_pair(page.with_line((lines[target][0], edited)), t, 0.0, "web_value_edit"))
    if (rival := pools.rival(t, rng)) and (key := pools.rival_key(t, rival, styles, rng)):
        pairs.append(_pair(page.with_line((key, lines[target][1])), t, 0.0, "web_key_edit"))
    if rival := pools.rival(t, rng):
        pairs.append(_pair(page, pools.swapped(t, rival), 0.0, "web_relation_swap"))
    stranger = _other(pools.subjects[pid], list(t.subject_names), rng)
    if stranger:
        pairs.append(_pair(replace(page, subject=stranger), t, 0.0, "web_other_subject"))
    return pairs


def _pair(page: Page, triple: Triple, label: float, kind: str) -> ReaderPair:
    title, text = page.render()
    return ReaderPair(triple, text, title, label, kind, "web")


def _prose_group(fact: Fact, other_value: str | None, pools: _Pools, rng: random.Random) -> list[ReaderPair]:
    """The evidence sentence among a page's boilerplate (under its own title, which may be all that names the
    subject); the same page with another value in the sentence, and the same page asked under another
    relation, drawn at random: a sentence may state two relations of the pair (born and died in Paris)."""
    t = fact.triple
    before = " ".join(rng.sample(BOILERPLATE, rng.randint(1, 4)))
    after = " ".join(rng.sample(BOILERPLATE, rng.randint(0, 3)))
    wrap = rng.choice(("{b} {x} {a}", "{b}\n{x}\n{a}", "{b} | {x} | {a}"))
    page = wrap.format(b=before, x=fact.text, a=after).strip()
    pairs = [ReaderPair(t, page, fact.title, 1.0, "web_evidence", "web")]
    if other_value:
        edited = re.sub(rf"(?<!\w){re.escape(t.object)}(?!\w)", lambda _: other_value, fact.text, flags=re.IGNORECASE)
        if edited != fact.text and not any(_mentioned(n, edited) for n in t.object_names):
            pairs.append(ReaderPair(t, wrap.format(b=before, x=edited, a=after).strip(), fact.title, 0.0,
                                    "web_value_edit", "web"))
    if rival := pools.rival(t, rng, sharing_share=0.0):
        pairs.append(ReaderPair(pools.swapped(t, rival), page, fact.title, 0.0, "web_relation_swap", "web"))
    return pairs


def _mentioned(name: str, text: str) -> bool:
    """Whether `name` stands in `text` as whole words (folded)."""
    return fold(name) in fold(text)


def _join(left: str, right: str, separator: str) -> str:
    """`right` after `separator`; a run-on the reader could not read apart ("Occupationpoet", "Ann LeeBorn")
    gets a space: no page teaches a fact whose names cannot be found."""
    return (separator or ("" if runs_apart(left, right) else " ")) + right


def _key(words: Sequence[str], styles: Sequence[Callable[[str], str]], rng: random.Random) -> str:
    word = words[0] if rng.random() < 0.5 else rng.choice(words)
    return rng.choice(styles)(word)


def _other(pool: Sequence[str], names: Sequence[str], rng: random.Random) -> str | None:
    """An entry of `pool` that neither names nor holds any of `names` (the triple's), if one turns up in a few
    draws: "East Los Angeles" is no other value for Los Angeles."""
    for _ in range(8):
        candidate = rng.choice(pool)
        if not any(_mentioned(n, candidate) or _mentioned(candidate, n) for n in names):
            return candidate
    return None
