"""The SFT loss with the decision's tokens weighted up.

An action is ~45 tokens, nearly all formulaic (the JSON, the triple read back). Under TRL's per-token mean
an earlier adapter fit the formula to a held-out loss of 0.024 and never fit the decision: on its own
training states its choice ranked true against false at AUC 0.54 (BENCHMARKS.md: "where the remaining errors sit").

The decision sits in three places: the reasoning's first token ("Pass" of "Passage N ..." citing a passage,
or "No" of "No shown passage ..."), the word after it (" states" for true; " names", " gives", " links" for
false; " settles" to search on, " states" to answer false) and the verdict value. Counting those tokens
`weight` times makes the decision a real share of the loss without dropping the rest of the action, which
the agent must still write. The tokens are matched by id wherever they stand in the action, so a name or
query holding one ("No Doubt") is weighted too: a little noise, which a position rule would avoid at the
cost of parsing the action. Every alternative at each place is weighted alike: weighting one side only
("No" but not "Pass", as a first run did) teaches that side, and that run's student searched on and said
false to 97% of the test triples.
"""

from __future__ import annotations

DECISION_WORDS = ("Pass", "No", " states", " names", " gives", " links", " settles", "true", "false")
IGNORED = -100  # TRL's label for a masked (prompt or padding) position


def decision_token_ids(tokenizer) -> list[int]:
    """The single token each decision word is in an action's text; a tokenizer that splits one cannot be
    weighted this way, so it is refused rather than weighted on a fragment."""
    ids = {word: tokenizer.encode(word, add_special_tokens=False) for word in DECISION_WORDS}
    split = [word for word, pieces in ids.items() if len(pieces) != 1]
    if split:
        raise ValueError(f"decision words {split} are not single tokens for this tokenizer; "
                         "set decision_weight = 1 for this model")
    return [pieces[0] for pieces in ids.values()]


def weighted_token_loss(logits, labels, decision_ids, weight: float):
    """Mean next-token cross-entropy over the unmasked label positions, each decision token counted
    `weight` times. `labels` are unshifted, as a causal LM takes them."""
    import torch
    import torch.nn.functional as F

    targets = labels[:, 1:]
    kept = targets != IGNORED
    # Only the action's positions: the full logits in fp32 would be batch x length x vocabulary floats.
    logits, targets = logits[:, :-1][kept].float(), targets[kept]
    losses = F.cross_entropy(logits, targets, reduction="none")
    weights = torch.where(torch.isin(targets, torch.as_tensor(decision_ids, device=targets.device)), weight, 1.0)
    return (losses * weights).sum() / weights.sum().clamp(min=1.0)


def decision_weighted(trainer_class: type) -> type:
    """`trainer_class` (TRL's SFTTrainer, imported by the caller only when training) with its loss replaced
    by `weighted_token_loss`; TRL's own token-accuracy metrics are not computed."""

    class DecisionWeightedTrainer(trainer_class):
        # Each micro-batch's loss is its own mean, so Trainer must divide it over accumulation steps.
        loss_is_scaled_for_ga = False

        def __init__(self, *args, decision_weight: float, **kwargs):
            super().__init__(*args, **kwargs)
            self.decision_ids = decision_token_ids(self.processing_class)
            self.decision_weight = decision_weight

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            outputs = model(**{k: v for k, v in inputs.items() if k != "labels"}, use_cache=False)
            loss = weighted_token_loss(outputs.logits, inputs["labels"], self.decision_ids, self.decision_weight)
            return (loss, outputs) if return_outputs else loss

    return DecisionWeightedTrainer
