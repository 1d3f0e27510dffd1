"""Stage-1 training: LoRA SFT on the state-action pairs, with TRL's SFTTrainer and PEFT.

The dataset is TRL's conversational prompt-completion format, so SFTTrainer renders it with the model's
own chat template (the same rendering the transformers backend uses at inference) and its completion-only
loss masks every prompt token. The same settings run SmolLM2 on a 2-core CPU and a 7B model on a GPU
(configs/sft_*.toml). The run checkpoints every `save_steps` and resumes from the last checkpoint.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Literal

from pydantic import Field

from agentkgv.data.errors import DataError
from agentkgv.data.settings import Settings
from agentkgv.memory import peak_memory_gib
from agentkgv.train.sft_loss import decision_weighted

ADAPTER_DIR = "adapter"


class LoRASettings(Settings):
    """The LoRA a training run starts when it has no adapter to continue (SFT always; GRPO without one)."""

    lora_r: int = 16
    lora_alpha: int = 32
    target_modules: str | list[str] = "all-linear"


class SFTSettings(LoRASettings):
    model: str = Field("smollm2", description="'smollm2' (embedded), a transformers folder or hub name")
    dtype: Literal["auto", "float32", "bfloat16"] = "auto"
    lora_dropout: float = 0.05
    # Continue this adapter (a folder, or the shipped `agentkgv-smollm2`) instead of starting a fresh LoRA;
    # its own LoRA shape then holds and the LoRA fields above are not used.
    init_adapter: str | None = None
    # Train these layers only (a fresh LoRA goes on them alone; a continued adapter keeps the rest frozen):
    # the backward pass then stops at the lowest, which roughly halves a CPU step for the top third.
    layers_to_transform: list[int] | None = None
    epochs: float = 2.0
    learning_rate: float = 2e-4
    batch_size: int = 4
    gradient_accumulation_steps: int = 2
    max_length: int = 1536
    gradient_checkpointing: bool = False
    logging_steps: int = 5
    save_steps: int = 25
    # Train on these kinds of pair only ("routing", "search", "judgment"; all when unset), and on a seeded
    # draw of at most `max_pairs` of them: what lets a CPU run fit its time (configs/sft_cpu_smollm2.toml).
    kinds: list[Literal["routing", "search", "judgment"]] | None = None
    max_pairs: int | None = Field(None, ge=1)
    # A held-out share of the pairs (whole triples, never split across sides) scored once an epoch.
    eval_fraction: float = Field(0.0, ge=0.0, lt=0.5)
    # How many times the decision's tokens count in the loss (agentkgv.train.sft_loss); 1 is TRL's plain mean.
    # Above 1 the held-out loss is the weighted one too, so it does not compare with a plain run's.
    decision_weight: float = Field(1.0, ge=1.0)
    seed: int = 13


def last_checkpoint(output_dir: Path) -> str | None:
    checkpoints = sorted(output_dir.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    return str(checkpoints[-1]) if checkpoints else None


def held_out_triples(triple_ids: list[str], fraction: float, seed: int) -> set[str]:
    """A seeded `fraction` of the triples behind the pairs (each pair's `triple_id`). Held out by triple, not
    by pair, so no state of a held-out triple's trajectory is trained on."""
    triples = sorted(set(triple_ids))
    return set(random.Random(seed).sample(triples, max(1, int(fraction * len(triples)))))


def build_trainer(dataset_path: Path, output_dir: Path, settings: SFTSettings, threads: int | None = None,
                  models: Path | None = None):
    """The TRL SFTTrainer for this run (not yet trained): LoRA on the base model (the embedded one converted into
    `models`), completion-only loss."""
    import torch
    from datasets import load_dataset
    from peft import LoraConfig
    from trl import SFTConfig, SFTTrainer

    from agentkgv.llm.transformers_backend import load_base_model, torch_dtype

    if threads:
        torch.set_num_threads(threads)
    on_gpu = torch.cuda.is_available()
    dtype = torch_dtype(settings.dtype)
    model, tokenizer = load_base_model(settings.model, settings.dtype, models)
    dataset = load_dataset("json", data_files=str(dataset_path), split="train")
    if settings.kinds:
        dataset = dataset.filter(lambda row: row["kind"] in settings.kinds)
    held_out = None
    if settings.eval_fraction:
        held = held_out_triples(dataset["triple_id"], settings.eval_fraction, settings.seed)
        held_out = dataset.filter(lambda row: row["triple_id"] in held)
        dataset = dataset.filter(lambda row: row["triple_id"] not in held)
    if settings.max_pairs and len(dataset) > settings.max_pairs:
        dataset = dataset.shuffle(seed=settings.seed).select(range(settings.max_pairs))
    config = SFTConfig(
        output_dir=str(output_dir), num_train_epochs=settings.epochs, learning_rate=settings.learning_rate,
        per_device_train_batch_size=settings.batch_size,
        gradient_accumulation_steps=settings.gradient_accumulation_steps, lr_scheduler_type="cosine",
        warmup_steps=0.05, max_length=settings.max_length, completion_only_loss=True,
        gradient_checkpointing=settings.gradient_checkpointing, logging_steps=settings.logging_steps,
        save_steps=settings.save_steps, save_total_limit=2, seed=settings.seed, report_to="none",
        # The held-out pass needs only its loss; keeping its logits would hold length x vocabulary floats.
        eval_strategy="epoch" if held_out is not None else "no", prediction_loss_only=True,
        use_cpu=not on_gpu, bf16=dtype == torch.bfloat16, dataloader_num_workers=0,
        # Padding within a batch is pure waste on a CPU: batch states of similar length together.
        train_sampling_strategy="group_by_length")
    lora = None
    if settings.init_adapter:
        model = continued_adapter(model, settings.init_adapter, settings.layers_to_transform)
    else:
        lora = LoraConfig(r=settings.lora_r, lora_alpha=settings.lora_alpha, lora_dropout=settings.lora_dropout,
                          target_modules=settings.target_modules, layers_to_transform=settings.layers_to_transform,
                          task_type="CAUSAL_LM")
    columns = ["triple_id", "sample", "turn", "kind", "predicate_id"]
    trainer, weighting = SFTTrainer, {}
    if settings.decision_weight > 1:
        trainer, weighting = decision_weighted(SFTTrainer), {"decision_weight": settings.decision_weight}
    return trainer(model=model, args=config, train_dataset=dataset.remove_columns(columns),
                   eval_dataset=held_out.remove_columns(columns) if held_out is not None else None,
                   processing_class=tokenizer, peft_config=lora, **weighting)


def continued_adapter(model, adapter: str, layers: list[int] | None):
    """`model` with `adapter` loaded for training, its LoRA weights outside `layers` frozen."""
    from peft import PeftModel

    from agentkgv.llm.embedded import resolve_adapter

    path = resolve_adapter(Path(adapter))
    if not (path / "adapter_config.json").is_file():
        raise DataError(path, "init_adapter: no PEFT adapter (adapter_config.json) in this folder")
    model = PeftModel.from_pretrained(model, str(path), is_trainable=True)
    if layers is not None:
        for name, parameter in model.named_parameters():
            layer = re.search(r"\.layers\.(\d+)\.", name)
            if parameter.requires_grad and (layer is None or int(layer.group(1)) not in layers):
                parameter.requires_grad_(False)
    return model


def train_sft(dataset_path: Path, output_dir: Path, settings: SFTSettings, threads: int | None = None,
              models: Path | None = None) -> dict:
    """Train, save the adapter under output_dir/adapter, and return the run's cost and loss record."""
    import torch

    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / "settings.json").write_text(settings.model_dump_json(indent=2))
    trainer = build_trainer(dataset_path, output_dir, settings, threads, models)
    started = time.perf_counter()
    result = trainer.train(resume_from_checkpoint=last_checkpoint(output_dir))
    minutes = (time.perf_counter() - started) / 60
    adapter = output_dir / ADAPTER_DIR
    trainer.save_model(str(adapter))
    losses = [{"step": r["step"], "loss": r["loss"]} for r in trainer.state.log_history if "loss" in r]
    held_out = [{"step": r["step"], "loss": r["eval_loss"]} for r in trainer.state.log_history if "eval_loss" in r]
    summary = {"examples": len(trainer.train_dataset), "epochs": settings.epochs, "steps": result.global_step,
               "minutes_this_run": round(minutes, 2), "final_train_loss": result.training_loss,
               "peak_memory_gib": peak_memory_gib(),
               "peak_gpu_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2) if torch.cuda.is_available() else None,
               "adapter": str(adapter), "losses": losses, "held_out_losses": held_out,
               "machine": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu"}
    (output_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    plot_losses(losses, held_out, output_dir / "loss.png")
    return summary


def plot_losses(losses: list[dict], held_out: list[dict], path: Path, title: str = "SFT loss",
                ylabel: str = "training loss (action tokens)") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 3.5))
    axis.plot([r["step"] for r in losses], [r["loss"] for r in losses], marker=".", label="training")
    if held_out:
        axis.plot([r["step"] for r in held_out], [r["loss"] for r in held_out], marker="o", label="held-out pairs")
        axis.legend()
    axis.set_xlabel("optimizer step")
    axis.set_ylabel(ylabel)
    axis.set_title(title)
    axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
