"""A calibrated version's card: card.json (everything measured, for tools) and card.md (for a person),
written atomically into the version's folder."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tileset.atomic_files import atomic_write_text
from training.augment import LearningCrops
from training.classifier_tune import FineTune
from training.fewshot import FewShotHead
from training.head import BlendChoice
from training.promotion import BasePhotos, Verdict
from vision.calibration_layout import LayoutReading
from vision.registry import utc_now
from vision.settings import CalibrateSettings


@dataclass(frozen=True)
class VersionMade:
    """What a calibration put in its version and how that version reads."""

    kept: str  # the method the version was made with
    why: str  # why that one
    verdict: Verdict
    choice: BlendChoice | None = None  # the few-shot head's blend
    head: FewShotHead | None = None
    tune: FineTune | None = None  # the classifier's fine-tune
    tune_verdict: Verdict | None = None  # the fine-tune alone, when it was judged and not kept


def photo_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def head_entry(made: VersionMade, crops: LearningCrops) -> dict[str, Any] | None:
    choice = made.choice
    if choice is None:
        return None
    return {
        "scale": choice.scale, "threshold_margin": choice.margin, "check_accuracy": choice.check_accuracy,
        "classifier_check_accuracy": choice.classifier_check_accuracy,
        "base_crops_unchanged": choice.base_crops,
        "train_crops": len(crops.train), "check_crops": len(crops.check)}


def finetune_entry(made: VersionMade, weights: str) -> dict[str, Any] | None:
    tune, verdict = made.tune, made.tune_verdict
    if tune is None:
        return None
    return {
        "epochs": tune.epochs, "batches": tune.batches, "seconds": round(tune.seconds, 1), "train_crops": tune.train_crops,
        "base_crops": tune.base_crops, "check_accuracy": tune.check_accuracy,
        "classifier_check_accuracy": tune.classifier_check_accuracy,
        "weights": f"{weights} (the fine-tuned weights are not kept)",
        "kept": verdict is None,
        **({} if verdict is None else {
            "promoted": False, "reason": verdict.reason,
            "read_accuracy": round(verdict.accuracy, 6),
            "misread": [line for r in verdict.after for line in r.misread],
            "base_val_after": verdict.base_new})}


def calibration_card(*, name: str, parent: str, command: str, seconds: float, photos: Sequence[Path],
                     bonus: tuple[str, ...] | None, before: Sequence[LayoutReading],
                     figures: tuple[dict[str, Any], dict[str, Any]], method_asked: str, made: VersionMade,
                     crops: LearningCrops, settings: CalibrateSettings, weights: str,
                     finder: dict[str, Any] | None,
                     base: BasePhotos, base_old: dict[str, Any] | None, issues: Sequence[str]) -> dict[str, Any]:
    """card.json of a calibrated version. `figures`: read accuracy before and after
    (`training.promotion.figures_before_after`); `weights`: the classifier's .pt a fine-tune started from."""
    verdict = made.verdict
    before_json, after_json = figures
    return {
        "name": name, "kind": "calibration", "created": utc_now(), "parent": parent,
        "command": command, "seconds": round(seconds, 1), "promoted": verdict.promote, "reason": verdict.reason,
        "photos": [{"path": str(Path(p).resolve()), "sha256": photo_sha256(Path(p))} for p in photos],
        "bonus": list(bonus) if bonus is not None else None,
        "evaluated_on": f"{len(photos)} calibration photo(s)",
        "metrics": after_json, "parent_metrics": before_json,
        "misread_before": [line for r in before for line in r.misread],
        "misread_after": [line for r in verdict.after for line in r.misread],
        "method": made.kept, "method_asked": method_asked, "method_reason": made.why,
        "head": head_entry(made, crops),
        "finetune": finetune_entry(made, weights),
        "finder": finder,
        "base_val": {"data": str(base.data) if base.val else None, "photos": len(base.checked),
                     "before": base_old, "after": verdict.base_new},
        "settings": asdict(settings), "issues": list(issues),
    }


def write_card(folder: Path, card: dict[str, Any]) -> None:
    """card.json and card.md into `folder`."""
    atomic_write_text(folder / "card.json", json.dumps(card, indent=1, ensure_ascii=False) + "\n")
    before, after, head, tune = card["parent_metrics"], card["metrics"], card["head"], card.get("finetune")
    lines = [
        f"# Model version {card['name']} (calibration, method {card.get('method', 'fewshot')})",
        "",
        f"Method asked: {card.get('method_asked', card.get('method', 'fewshot'))}; kept: {card.get('method', 'fewshot')}"
        f" ({card.get('method_reason') or 'asked for'})",
        "",
        f"Calibrated from `{card['parent']}` on {card['created']} with:",
        "",
        f"    {card['command']}",
        "",
        "- Photos: " + ", ".join(f"`{p['path']}` (sha256 {p['sha256']})" for p in card["photos"]),
        f"- Calibration photo(s) read right: before {before['read_accuracy']:.2%}, after {after['read_accuracy']:.2%}",
    ]
    if "base_read_accuracy" in before:
        lines.append(f"- Base val ({card['base_val']['photos']} photos of `{card['base_val']['data']}`) read accuracy: "
                     f"before {before['base_read_accuracy']:.2%}, after {after['base_read_accuracy']:.2%}")
    if tune is not None:
        lines.append(f"- Fine-tuned classifier: {tune['epochs']} epoch(s) in {tune['seconds']:.0f} s on {tune['train_crops']} "
                     f"crops of the photo(s) + {tune['base_crops']} base crops; held-out copies "
                     f"{tune['classifier_check_accuracy']:.2%} -> {tune['check_accuracy']:.2%}"
                     + ("" if tune.get("kept", True) else
                        f"; not kept: {tune['reason']} (calibration photo(s) {tune['read_accuracy']:.2%} read right"
                        + ("" if not tune.get("base_val_after") else
                           f", base val read accuracy {tune['base_val_after']['read_accuracy']:.2%}") + ")"))
    if head is not None:
        lines.append(f"- Few-shot head: scale {head['scale']:g}, threshold margin {head['threshold_margin']:g} "
                     f"({head['train_crops']} crops; held-out copies {head['classifier_check_accuracy']:.2%} -> "
                     f"{head['check_accuracy']:.2%})")
    lines += [
        f"- Promoted: {'yes' if card['promoted'] else 'no'} — {card['reason']}",
        f"- Time: {card['seconds']:.0f} s",
        "",
    ]
    if card["misread_before"]:
        lines += ["Misread before:", "", *[f"- {line}" for line in card["misread_before"]], ""]
    atomic_write_text(folder / "card.md", "\n".join(lines))
