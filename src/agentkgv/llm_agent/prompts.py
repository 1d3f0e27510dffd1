"""The LLM agent's prompts and the JSON schemas that constrain its actions and summaries.

The rendered message list is the single source of truth for what a model saw: the agent records it
verbatim in the trajectory and the training stages learn from exactly that text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from agentkgv.core.combinations import COMBINATIONS
from agentkgv.core.evidence_view import PassageView, view_passage
from agentkgv.core.prompt_parts import (UNTRUSTED_NOTE, clean_passage, json_string, neutralise, show_passages,
                                        show_triple)
from agentkgv.data.records import Triple
from agentkgv.llm.base import Prompt
from agentkgv.llm_agent.trajectory import Trajectory
from agentkgv.retrieval.base import Hit

AGENT_SYSTEM = ("You check a knowledge-graph triple (subject | predicate | object) against search results. "
                + UNTRUSTED_NOTE + " Reply with one JSON object.")
TEACHER_SYSTEM = (AGENT_SYSTEM + " Search whenever you are not certain; answer directly only when general "
                  "knowledge clearly settles the triple.")
SUMMARY_SYSTEM = ("You keep a short running summary of search results for checking a triple. "
                  + UNTRUSTED_NOTE + " Reply with one JSON object.")


def action_schema(reasoning_chars: int, query_chars: int, allow_search: bool = True, allow_answer: bool = True,
                  verdicts: Sequence[str] = ("true", "false"), queries: Sequence[str] | None = None,
                  passages: int = 0, max_cited: int = 2) -> dict:
    """An answer or a search, told apart by `action`; reasoning first so the choice follows the thought.

    An answer cites the numbers of the shown passages it relied on (`passages` of them are shown; none
    when the agent answers before searching), before its verdict, so the verdict follows the citation.
    `verdicts` and `queries` narrow the choices: a teacher writing training data narrows both, and the
    agent's grounding rule leaves only "false" when no shown passage names both subject and object.
    """
    if not (allow_search or allow_answer):
        raise ValueError("an action schema must allow an answer or a search")
    cited = ({"type": "array", "items": {"enum": list(range(1, passages + 1))}, "maxItems": max_cited}
             if passages else {"type": "array", "maxItems": 0})
    answer = {"type": "object",
              "properties": {"reasoning": json_string(reasoning_chars), "action": {"const": "answer"},
                             "evidence": cited, "verdict": {"enum": list(verdicts)}},
              "required": ["reasoning", "action", "evidence", "verdict"], "additionalProperties": False}
    query = {"enum": list(dict.fromkeys(queries))} if queries else json_string(query_chars)
    search = {"type": "object",
              "properties": {"reasoning": json_string(reasoning_chars), "action": {"const": "search"},
                             "combination": {"enum": list(COMBINATIONS)}, "query": query},
              "required": ["reasoning", "action", "combination", "query"], "additionalProperties": False}
    if not allow_search:
        return answer
    return {"anyOf": [answer, search]} if allow_answer else search


def action_text(action: dict) -> str:
    """An action object as constrained decoding writes it: schema key order, `, ` and `: ` separators,
    no other whitespace (`any_whitespace=False`). A policy that writes actions without a model, such as
    the privileged teacher, must produce exactly this text so training targets match inference."""
    return json.dumps(action, ensure_ascii=False)


def summary_schema(summary_chars: int) -> dict:
    return {"type": "object", "properties": {"summary": json_string(summary_chars)}, "required": ["summary"],
            "additionalProperties": False}


def agent_view(triple: Triple, hit: Hit, max_words: int) -> PassageView:
    """A retrieved passage as the agent reads it: neutralised, windowed, the triple's mentions marked."""
    return view_passage(neutralise(hit.passage.text), triple.subject, triple.object, max_words,
                        triple.subject_aliases, triple.object_aliases)


def show_marked_passages(triple: Triple, hits: Sequence[Hit], max_words: int) -> str:
    """The agent's view of its results: each passage windowed around the triple's mentions, which are
    marked [S:...] and [O:...] (agentkgv.core.evidence_view)."""
    if not hits:
        return "(no passages found)"
    shown = []
    for number, hit in enumerate(hits, start=1):
        view = agent_view(triple, hit, max_words)
        title = clean_passage(hit.passage.title, 5)
        shown.append(f'<passage id="{number}"' + (f' title="{title}"' if title else "") + f">{view.text}</passage>")
    return "\n".join(shown)


def agent_state(trajectory: Trajectory, max_turns: int, max_passage_words: int, teacher: bool = False,
                hint: bool | None = None) -> Prompt:
    """The context c_t = [triple, summary of earlier turns, last query, last results] (paper eq. 1) for the
    trajectory's next turn.

    Kept compact (a few hundred tokens): a terse combination list, and passages windowed around the
    triple's marked mentions. `teacher` and `hint` only ever shape an LLM teacher's view when it writes
    training data: the gold label as a hint lets a small teacher rationalize. The student's state is the
    same call without them.
    """
    triple, paraphrases, turn = trajectory.item.triple, trajectory.paraphrases, len(trajectory.turns) + 1
    lines = [f"Triple: {show_triple(triple)}",
             f"Predicate also: {'; '.join(paraphrases) if paraphrases else 'none'}",
             f"Turn {turn} of {max_turns}. Combinations: {' | '.join(COMBINATIONS)}"]
    if trajectory.last_query is None:
        lines += ["Search: pick a combination and write its query. Answer now only if general knowledge "
                  "settles the triple."]
    else:
        lines += [f"Earlier searches: {trajectory.summary or 'none'}",
                  f"Query: {trajectory.last_query}",
                  "Results ([S:..] subject, [O:..] object):", show_marked_passages(triple, trajectory.last_hits,
                                                                                   max_passage_words),
                  "Answer if they settle it, citing passages (another value for the subject counts against). "
                  "Else search another combination."]
    if turn == max_turns:
        lines += ["Last turn: answer now."]
    if hint is not None:
        lines += [f"(Teacher's note: the correct verdict is {'true' if hint else 'false'}.)"]
    return [{"role": "system", "content": TEACHER_SYSTEM if teacher else AGENT_SYSTEM},
            {"role": "user", "content": "\n".join(lines)}]


def summary_prompt(triple: Triple, summary: str | None, query: str, hits: Sequence[Hit], max_passage_words: int,
                   summary_chars: int) -> Prompt:
    """Summarizer(S_<t, q_t, R_t) -> S_<t+1 (paper eq. 2)."""
    user = "\n".join([f"Triple: {show_triple(triple)}", f"Summary so far: {summary or 'none'}",
                      f"New query: {query}", "New results:", show_passages(hits, max_passage_words),
                      f"Write the updated summary in at most {summary_chars} characters: what the searches found "
                      "for or against the triple, and what is still missing."])
    return [{"role": "system", "content": SUMMARY_SYSTEM}, {"role": "user", "content": user}]
