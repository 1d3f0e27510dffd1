"""Stage-1 (teacher trajectories, SFT pairs, LoRA SFT) and stage-2 (trajectory-level GRPO) training."""
