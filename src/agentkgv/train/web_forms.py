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

import random
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from agentkgv.agent.evidence_view import runs_apart
from agentkgv.data.predicates import PredicateInfo
from agentkgv.data.records import Triple
from agentkgv.data.text import label_key
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


@dataclass(frozen=True, slots=True)
class Fact:
    triple: Triple
    text: str


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
    among the facts, and the facts themselves (a swapped claim must not be one)."""
    keys: Mapping[str, Sequence[str]]
    values: Mapping[str, list[str]]
    subjects: Mapping[str, list[str]]
    known: set[tuple[str, str, str]]

    def rival(self, triple: Triple, rng: random.Random) -> str | None:
        """Another relation (not a near synonym), half the time one that takes this very object in some fact
        (born in / died in a city), which only reading the relation tells apart."""
        pid = triple.predicate_id or ""
        others = [r for r in self.values if r != pid and not synonyms(r, pid)
                  and (label_key(triple.subject), r, label_key(triple.object)) not in self.known]
        sharing = [r for r in others if label_key(triple.object) in {label_key(v) for v in self.values[r]}]
        return rng.choice(sharing if sharing and rng.random() < 0.5 else others) if others else None

    def swapped(self, triple: Triple, rival: str) -> Triple:
        return replace(triple, predicate=self.keys[rival][0], predicate_id=rival)


def web_form_pairs(facts: Sequence[Fact], keys: Mapping[str, Sequence[str]], rng: random.Random,
                   share: float = 1.0) -> list[ReaderPair]:
    """A contrastive group of pairs for a `share` of the facts; `keys` gives each relation id the words a page
    may name it by (its label first). Facts of relations without keys are skipped."""
    facts = [f for f in facts if f.triple.predicate_id in keys]
    pools = _Pools(keys, defaultdict(list), defaultdict(list),
                   {(label_key(f.triple.subject), f.triple.predicate_id or "", label_key(f.triple.object)) for f in facts})
    for fact in facts:
        pools.values[fact.triple.predicate_id or ""].append(fact.triple.object)
        pools.subjects[fact.triple.predicate_id or ""].append(fact.triple.subject)
    pairs: list[ReaderPair] = []
    for fact in facts:
        if rng.random() < share:
            pairs += _group(fact, pools, rng)
    return pairs


def _group(fact: Fact, pools: _Pools, rng: random.Random) -> list[ReaderPair]:
    t, pid = fact.triple, fact.triple.predicate_id or ""
    names = {label_key(n) for n in (*t.subject_names, *t.object_names)}
    other_value = _other(pools.values[pid], names, rng)
    if rng.random() < 0.25 and label_key(t.object) in label_key(fact.text):
        return _prose_group(fact, other_value, pools, rng)
    value = rng.choice(t.object_aliases) if t.object_aliases and rng.random() < 0.2 else t.object
    listed = [value]
    if rng.random() < 0.25:  # a list: "Stars: A, B, C"
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
    if other_value and label_key(other_value) not in {label_key(v) for v in listed}:
        edited = ", ".join(other_value if v == value else v for v in listed)
        pairs.append(_pair(page.with_line((lines[target][0], edited)), t, 0.0, "web_value_edit"))
    if rival := pools.rival(t, rng):
        pairs.append(_pair(page.with_line((_key(pools.keys[rival], styles, rng), lines[target][1])), t, 0.0,
                           "web_key_edit"))
    if rival := pools.rival(t, rng):
        pairs.append(_pair(page, pools.swapped(t, rival), 0.0, "web_relation_swap"))
    stranger = _other(pools.subjects[pid], names, rng)
    if stranger and not any(label_key(n) in label_key(stranger) for n in t.subject_names):
        pairs.append(_pair(replace(page, subject=stranger), t, 0.0, "web_other_subject"))
    return pairs


def _pair(page: Page, triple: Triple, label: float, kind: str) -> ReaderPair:
    title, text = page.render()
    return ReaderPair(triple, text, title, label, kind, "web")


def _prose_group(fact: Fact, other_value: str | None, pools: _Pools, rng: random.Random) -> list[ReaderPair]:
    """The evidence sentence among a page's boilerplate; the same page with another value in it, and the same
    page asked under another relation."""
    t = fact.triple
    before = " ".join(rng.sample(BOILERPLATE, rng.randint(1, 4)))
    after = " ".join(rng.sample(BOILERPLATE, rng.randint(0, 3)))
    wrap = rng.choice(("{b} {x} {a}", "{b}\n{x}\n{a}", "{b} | {x} | {a}"))
    page = wrap.format(b=before, x=fact.text, a=after).strip()
    pairs = [ReaderPair(t, page, "", 1.0, "web_evidence", "web")]
    if other_value:
        edited = re.sub(re.escape(t.object), other_value, page, flags=re.IGNORECASE)
        if edited != page and not any(label_key(a) in label_key(edited) for a in t.object_names):
            pairs.append(ReaderPair(t, edited, "", 0.0, "web_value_edit", "web"))
    if rival := pools.rival(t, rng):
        pairs.append(ReaderPair(pools.swapped(t, rival), page, "", 0.0, "web_relation_swap", "web"))
    return pairs


def _join(left: str, right: str, separator: str) -> str:
    """`right` after `separator`; a run-on the reader could not read apart ("Occupationpoet", "Ann LeeBorn")
    gets a space: no page teaches a fact whose names cannot be found."""
    return (separator or ("" if runs_apart(left, right) else " ")) + right


def _key(words: Sequence[str], styles: Sequence[Callable[[str], str]], rng: random.Random) -> str:
    word = words[0] if rng.random() < 0.5 else rng.choice(words)
    return rng.choice(styles)(word)


def _other(pool: Sequence[str], taken: set[str], rng: random.Random) -> str | None:
    """An entry of `pool` whose label is none of `taken` (the triple's names), if one turns up in a few draws."""
    for _ in range(8):
        candidate = rng.choice(pool)
        if label_key(candidate) not in taken:
            return candidate
    return None
