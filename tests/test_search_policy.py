"""The reading agent's search policy: the stop decision, its two-stage training (cloned rule, then GRPO),
the reward, the masking of what is not the policy's, and resuming a run."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agentkgv.reader_agent.calibration import Calibration, Evidence
from agentkgv.reader_agent.agent import ReadingAgent
from agentkgv.reader_agent.config import ReadingConfig
from agentkgv.reader_agent.judges import ReaderJudge
from agentkgv.reader_agent.reader_folder import ReaderFolder
from agentkgv.reader_agent.stopping import FEATURES, LearnedStop, SearchState, SettledRule
from agentkgv.data.errors import DataError
from agentkgv.train.grpo_math import group_advantages, grpo_loss
from agentkgv.train.search_policy import (HELD_OUT_TRAINING, RARE_RELATIONS, Episode, EpisodeStates,
                                          SearchPolicySettings, decision_logps, evaluate, read_episodes, rollout,
                                          train_search_policy, write_episodes)

CALIBRATION = Calibration(weights=(1.0, 0.0, 0.0), intercept=0.0, true_at=0.8, false_at=0.3)
ALWAYS_STOP = np.array([30.0] + [0.0] * (len(FEATURES) - 1))
NEVER_STOP = np.array([-30.0] + [0.0] * (len(FEATURES) - 1))


def _episodes(count: int = 200) -> list[Episode]:
    """True triples found at the first search, false ones where no search finds anything: every search
    after the first is wasted, and the settled rule wastes two on each false triple."""
    found, nothing = Evidence(3.0, True, 3.0), Evidence(-3.0, False, -10.0)
    return [Episode((found,) * 3, True, 3) if i % 2 == 0 else Episode((nothing,) * 3, False, 3) for i in range(count)]


def test_the_reward_is_the_papers_formula_on_hand_made_trajectories():
    episode = [Episode((Evidence(-3.0), Evidence(3.0), Evidence(3.0)), True, 3)]  # found at the second search
    rng = np.random.default_rng(0)
    stopped = rollout(ALWAYS_STOP, EpisodeStates.of(episode, CALIBRATION), 1, alpha=0.1, rng=rng)
    read_on = rollout(NEVER_STOP, EpisodeStates.of(episode, CALIBRATION), 1, alpha=0.1, rng=rng)
    # Stop after one search: wrong (false said of a true triple), no penalty: 0. Read all three: right,
    # two searches after the first: 1 - 2 * 0.1.
    assert stopped.searches == [1] and float(stopped.rewards[0]) == pytest.approx(0.0)
    assert read_on.searches == [3] and float(read_on.rewards[0]) == pytest.approx(0.8)


def test_only_the_policys_own_decisions_carry_the_loss():
    """Padding slots (after a trajectory stopped) are masked: changing what they hold changes nothing."""
    episodes = [Episode((Evidence(-3.0),) * 3, False, 3), Episode((Evidence(3.0),) * 3, True, 3)]
    rolled = rollout(np.zeros(len(FEATURES)), EpisodeStates.of(episodes, CALIBRATION), 4, alpha=0.05, rng=np.random.default_rng(1))
    assert (rolled.mask.sum(dim=1) == torch.tensor([min(s, 2) for s in rolled.searches], dtype=rolled.mask.dtype)).all()
    weights = torch.tensor([0.3, 0.1, 0.2, -0.2, 0.4, 0.0, -0.3, 0.5], dtype=torch.float64, requires_grad=True)
    advantages = group_advantages(rolled.rewards, 4)

    def loss(r):
        logps = decision_logps(weights, r)
        return grpo_loss(logps, logps.detach(), logps.detach(), advantages, r.mask, 0.2, 0.02).loss

    first = loss(rolled)
    rolled.features[rolled.mask == 0] = 123.0  # garbage where no decision was taken
    assert torch.allclose(loss(rolled), first)


def test_a_batch_of_episodes_of_several_lengths_is_rolled_out_to_each_ones_end():
    """Episodes may hold fewer searches than the budget (a triple with fewer distinct queries): a policy that
    never stops reads each to its own end, one that always stops answers after the first search, and only the
    decisions taken carry loss."""
    found = Evidence(3.0)
    episodes = [Episode((found,), True, 3), Episode((found,) * 2, True, 3), Episode((found,) * 3, True, 3)]
    states = EpisodeStates.of(episodes, CALIBRATION)
    rng = np.random.default_rng(0)
    read_on, stopped = rollout(NEVER_STOP, states, 2, 0.1, rng), rollout(ALWAYS_STOP, states, 2, 0.1, rng)
    assert read_on.searches == [1, 1, 2, 2, 3, 3] and stopped.searches == [1] * 6
    assert read_on.mask.sum(dim=1).tolist() == [0, 0, 1, 1, 2, 2] and read_on.actions.sum() == 0
    assert stopped.mask.sum(dim=1).tolist() == [0, 0, 1, 1, 1, 1] and stopped.actions.sum(dim=1).tolist() == [0, 0, 1, 1, 1, 1]
    assert [round(float(r), 6) for r in read_on.rewards] == [1.0, 1.0, 0.9, 0.9, 0.8, 0.8]


def test_grpo_cuts_wasted_searches_without_losing_verdicts(tmp_path):
    episodes = _episodes()
    # beta a tenth of alpha, as in the recipe (SearchPolicySettings.beta says why)
    settings = SearchPolicySettings(steps=40, triples_per_step=32, save_steps=20, learning_rate=0.2, alpha=0.1,
                                    beta=0.01)
    record = train_search_policy(episodes, CALIBRATION, tmp_path, settings)
    rule, grpo = record["held_out"]["settled rule"], record["held_out"]["stage 1 + GRPO"]
    assert rule["searches"] > 1.5  # two wasted searches on each false triple
    assert grpo["searches"] <= 0.6 * rule["searches"] and grpo["macro_f1"] >= rule["macro_f1"]
    learned = LearnedStop.read(tmp_path / "stop_policy.json")
    assert evaluate(learned, episodes, CALIBRATION) == pytest.approx(grpo, abs=0.05)
    assert (tmp_path / "grpo_search.png").exists()


def test_grpo_searches_again_only_where_a_second_search_can_settle_the_triple(tmp_path):
    """Three kinds of triple: found at once (settled), nothing anywhere (false, P(true) low), and weak support
    at first that the second search settles. The best policy stops the first two after one search and reads
    on for the third: not monotone in P(true), so a logistic policy over P(true) alone cannot take it, and
    the settled flag makes it one weight away (without the flag this run kept every search the rule makes:
    measured once, BENCHMARKS.md, not asserted here)."""
    found, nothing, weak = Evidence(3.0), Evidence(-3.0), Evidence(0.5)
    kinds = [Episode((found,) * 3, True, 3), Episode((nothing,) * 3, False, 3), Episode((nothing,) * 3, False, 3),
             Episode((weak, found, found), True, 3)]
    episodes = kinds * 60
    # beta a tenth of alpha, as in the recipe
    settings = SearchPolicySettings(steps=200, triples_per_step=32, save_steps=100, learning_rate=0.2, alpha=0.1,
                                    beta=0.01)
    record = train_search_policy(episodes, CALIBRATION, tmp_path, settings)
    rule, grpo = record["held_out"]["settled rule"], record["held_out"]["stage 1 + GRPO"]
    assert rule["searches"] > 2.0 and rule["macro_f1"] == 1.0
    assert grpo["macro_f1"] == 1.0 and grpo["searches"] <= 0.6 * rule["searches"]


def test_grpo_searches_again_where_no_passage_about_the_subject_was_read(tmp_path):
    """Two kinds of triple look alike after the first search (the same weak support, P(true) in between):
    one whose first search read no passage naming the subject, which the second search then settles, and one
    whose first search did read about the subject and stays unsupported. With the named-subject feature the
    best policy searches again on the first kind only; without it, it must search on both or lose the first."""
    found, nothing = Evidence(3.0, True, 3.0, True), Evidence(-3.0)
    astray, about = Evidence(0.5), Evidence(0.5, named_subject=True)
    kinds = [Episode((astray, found, found), True, 3), Episode((about,) * 3, False, 3),
             Episode((found,) * 3, True, 3), Episode((nothing,) * 3, False, 3)]
    # beta a tenth of alpha, as in the recipe
    settings = SearchPolicySettings(steps=200, triples_per_step=32, save_steps=100, learning_rate=0.2, alpha=0.1,
                                    beta=0.01)
    record = train_search_policy(kinds * 60, CALIBRATION, tmp_path, settings)
    grpo = record["held_out"]["stage 1 + GRPO"]
    # One search for three kinds and two for the first: 1.25; searching the second kind again as well, 1.5.
    assert grpo["macro_f1"] == 1.0 and grpo["searches"] <= 1.35


def test_the_subject_once_read_stays_read_and_old_episodes_are_refused(tmp_path):
    about = Evidence().add(-2.0, False, True)
    assert about.named_subject and not about.named_both
    assert about.add(-5.0, False, False).named_subject  # a later passage about something else
    assert not Evidence().add(1.0, False, False).named_subject
    path = tmp_path / "episodes.jsonl"
    write_episodes(path, [Episode((about,) * 3, True, 3)])
    assert read_episodes(path)[0].history[0].named_subject
    # Read before the field existed: the policy would learn from a feature that is always off.
    path.write_text(json.dumps({"history": [{"support": 1.0, "named_both": False, "named_support": -10.0}],
                                "gold": True, "budget": 3, "source": HELD_OUT_TRAINING}) + "\n")
    with pytest.raises(DataError, match="episodes.jsonl:1.*rerun `agentkgv train-search-policy`"):
        read_episodes(path)


def test_held_out_figures_are_given_for_each_kind_of_episode(tmp_path):
    """Episodes of held-out training triples and of the relations the reader barely learned are measured apart as
    well as together: a policy for the reader of rare relations is judged on the relations it will meet."""
    found, nothing = Evidence(3.0, True, 3.0), Evidence(-3.0, False, -10.0)
    episodes = [Episode((found,) * 3, True, 3, HELD_OUT_TRAINING) if i % 2 else
                Episode((nothing,) * 3, False, 3, RARE_RELATIONS) for i in range(100)]
    record = train_search_policy(episodes, CALIBRATION, tmp_path, SearchPolicySettings(steps=2, triples_per_step=8))
    by_source = record["held_out_by_source"]
    assert set(by_source) == {HELD_OUT_TRAINING, RARE_RELATIONS}
    # The rule stops at once on the settled ones and reads to the budget on the others.
    assert by_source[HELD_OUT_TRAINING]["settled rule"] == {"macro_f1": 0.5, "searches": 1.0}
    assert by_source[RARE_RELATIONS]["settled rule"]["searches"] == 3.0
    assert 1.0 < record["held_out"]["settled rule"]["searches"] < 3.0


def test_a_resumed_run_continues_from_its_checkpoint(tmp_path):
    episodes = _episodes(60)
    first = train_search_policy(episodes, CALIBRATION, tmp_path, SearchPolicySettings(steps=4, save_steps=2, triples_per_step=8))
    assert first["resumed_from"] is None
    again = train_search_policy(episodes, CALIBRATION, tmp_path, SearchPolicySettings(steps=6, save_steps=2, triples_per_step=8))
    assert again["resumed_from"] == 4
    history = torch.load(tmp_path / "checkpoint.pt", weights_only=False)["history"]
    assert [h["step"] for h in history] == [1, 2, 3, 4, 5, 6]


def test_the_agent_stops_where_its_policy_says(tmp_path):
    from agentkgv.data.records import Passage
    from agentkgv.retrieval.bm25 import BM25Retriever
    from tests.test_reader import WordReader, item

    index = BM25Retriever.build([Passage("p0", "Ada Smith was a farmer."), Passage("p1", "Bob Jones lived in York.")],
                                tmp_path / "bm25")
    path = tmp_path / "stop.json"
    shipped = ReaderFolder.shipped()
    LearnedStop(tuple(ALWAYS_STOP), shipped.support_fingerprint, 3).save(path, {})
    policy = shipped.stop_policy(path, 3)  # trained for the shipped reader with 3 searches: taken
    learned = ReadingAgent(index, ReaderJudge(WordReader(), CALIBRATION, policy), {}, ReadingConfig()).verify([item("Paris")])[0]
    ruled = ReadingAgent(index, ReaderJudge(WordReader(), CALIBRATION), {}, ReadingConfig()).verify([item("Paris")])[0]
    assert learned.search_calls == 1 and ruled.search_calls == 3 and learned.verdict is ruled.verdict is False
    assert learned.trace.evidence.named_subject and not learned.trace.evidence.named_both  # "Ada Smith was a farmer."
    settled, unsettled = (SearchState.of(CALIBRATION, Evidence(support), 1, 3) for support in (2.0, 0.0))
    assert SettledRule().stop(settled) and not SettledRule().stop(unsettled)
    # A policy trained for another reader or budget is refused: its inputs would mean other things.
    with pytest.raises(DataError, match="trained for reader .* with 3 searches, not reader .* with 2"):
        shipped.stop_policy(path, 2)
    LearnedStop(tuple(ALWAYS_STOP), "another-reader", 3).save(path, {})
    with pytest.raises(DataError, match="trained for reader another-reader"):
        shipped.stop_policy(path, 3)
    path.write_text(json.dumps({"features": list(FEATURES), "weights": [1.0]}))
    with pytest.raises(DataError, match="weights"):
        LearnedStop.read(path)
    # A policy of an earlier state (without the settled flag) says what it was trained on and how to retrain.
    earlier = ["bias", "p_true", "named_both", "support", "named_support", "searches"]
    path.write_text(json.dumps({"features": earlier, "weights": [0.1] * len(earlier), "reader": "r", "budget": 3}))
    with pytest.raises(DataError, match="bias, p_true, named_both.*retrain it with `agentkgv train-search-policy`"):
        LearnedStop.read(path)


def test_the_shipped_stop_policies_fit_the_shipped_readers():
    """configs/eval_stop_policies.toml names the policies shipped beside the readers: each must have been
    trained on its own reader's scores, with the agent's search budget."""
    from pathlib import Path

    from agentkgv.config import RunConfig
    from agentkgv.reader_agent.build import Readers

    config = RunConfig.load(Path(__file__).parents[1] / "configs" / "eval_stop_policies.toml").reading
    readers = Readers.open(config)
    assert readers.rare is not None and config.stop_policy is not None and config.rare_stop_policy is not None
    for policy, folder in ((config.stop_policy, readers.main), (config.rare_stop_policy, readers.rare)):
        folder.stop_policy(policy, config.max_searches)  # refused unless trained on this reader with this budget


def test_a_stop_policy_outlives_a_refit_of_what_it_does_not_read(tmp_path):
    """A policy reads the reader's support and its calibration to P(true): refitting the prior or the
    contradiction ratio keeps it; moving a threshold retires it."""
    import shutil

    from agentkgv.reader_agent.reader_folder import shipped_reader_dir

    folder = tmp_path / "reader"
    shutil.copytree(shipped_reader_dir(), folder)
    before = ReaderFolder.open(folder).support_fingerprint
    calibration = json.loads((folder / "calibration.json").read_text())
    (folder / "calibration.json").write_text(json.dumps({**calibration, "prior": 0.8, "contradiction_ratio": 0.2}))
    assert ReaderFolder.open(folder).support_fingerprint == before
    (folder / "calibration.json").write_text(json.dumps({**calibration, "true_at": calibration["true_at"] + 0.01}))
    assert ReaderFolder.open(folder).support_fingerprint != before
