"""The tile finder trained on this machine's CPU, in the background, within a time budget, resumable.

    python -m training.finder prepare --real REAL --art ART --out DATA [--standing 1500] [--hands 400] [--kong-hands 0] [--no-rooms]
                                      [--real-play 0] [--seed S]
    python -m training.finder train --data DATA --minutes 120 [--work runs/finder] [--weights models/detector.pt]
    python -m training.finder train --data DATA --minutes 60 --resume        # later, from the last checkpoint
    python -m training.finder blend --tuned CKPT [CKPT...] --share 0.5 --out FINDER.pt [--base models/detector.pt]

`prepare` draws what the real misses call for and mixes it with the real photos (REAL: a folder in the
form of chinese-v4, with manifest.csv; ART: artwork folders as `datasets.art` reads them):

- the real train photos, split by capture session as every figure is (`datasets.build --real-test --seed 0`,
  `datasets/label_fixes/NAME.csv` applied to a folder called NAME, half of them also squeezed), so that val
  and test stay unseen; all of them, or `--real-train N` spread evenly (the split holds Roboflow's augmented copies too);
- standing tiles as a webcam sees them at play (`datasets.synth --view standing --at-play`): rows turned up to
  70 degrees, leaning and overlapping, loose tiles in front, fingers over them, a low camera, shelves of
  books with printed titles behind, restyled white dragons and flowers; a fifth of them the room around a
  table with no tile (book spines, boxes, mugs, papers, dice, coins: hard negatives beside the positives),
  which `--no-rooms` draws but leaves out of training (with them, runs lost the real webcam frames' standing
  tiles: `docs/notebook.md`, stop 67);
- `--real-play N`: N scenes of each real train photo's own tiles standing in a row, from a seat or a low
  webcam, on its own table (`draw_real_play`): real faces standing, which no rendered view gives;
- hands laid out on the table families (a fifth of them bare tables), so the photo layout is not forgotten;
- `--kong-hands N`: hands holding concealed kongs (fans 53 and 67), whose two outer tiles lie face down: the
  lying backs the other parts hold few of (the real photos label none), which a finder that forgets them boxes
  as faces for the classifier to name;
- tile sets laid out to be learned (`--layout calibration`): faces in rows close together, as on a tray, which
  the spines on a shelf must not teach the finder to leave.

The held-out artwork (kde-traditional, gnome-smooth) is never drawn. val = the real val photos and
rendered standing views of other seeds. Labels are the finder's two classes (tile, back).

`train` fine-tunes the finder's weights on DATA with ultralytics on torch threads = the CPU's cores, the
images cached in RAM, a constant learning rate (so that a run stopped anywhere and resumed later follows
the same course), BatchNorm statistics kept as they came (`keep_batchnorm`), mosaic on unless `--mosaic 0`
(every training image then holds pieces of four: standing positives reach every batch; the shipped finder
ended its course on whole images). It stops at its time budget between two batches, keeping every epoch's
checkpoint (`WORK/finder/weights/last.pt`, `best.pt`, and `epochN.pt` with `--save-period 1`) and
`WORK/finder/resume.pt` (the optimizer too), from which `--resume` goes on; `--resume-from CKPT` goes on from
a checkpoint kept elsewhere (`models/detector_train.pt` beside the shipped `.pt` when that is the one to
continue from). Progress goes to stdout, one line a minute.

`blend` mixes a fine-tune's weights with those it started from, `share` of the way from the base to the
tuned (weight-space ensembling, as WiSE-FT; several checkpoints of runs from the same base are averaged first, a
"model soup"): the fine-tune's gains on what it was taught, less of what it
forgot on the photos it was not. Both must be the same network; BatchNorm statistics are mixed alike.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoring.fans import FanId
from tileset.atomic_files import atomic_write_bytes
from tileset.labelfiles import IMAGE_SUFFIXES
from training.finder_tune import FINDER_BACK, FINDER_TILE, finder_label, yolo_lines
from training.train import DETECTOR_NAMES, TrainError, _check_unfinished

HELD_OUT_ART = ("kde-traditional", "gnome-smooth")
RESUME_NAME = "resume.pt"
DEFAULT_SEED = 56_000_000  # scenes i are drawn from seed + i; val scenes from seed + VAL_OFFSET + i
VAL_OFFSET = 500_000
HANDS_OFFSET = 1_000_000
CALIBRATION_OFFSET = 1_500_000
KONG_HANDS_OFFSET = 2_000_000
REAL_PLAY_OFFSET = 2_500_000
REAL_PLAY_KINDS = ("standing_row", "low_webcam")
REAL_PLAY_SIZES = ((640, 480), (640, 360))
REAL_PLAY_FLOOR = 0.05  # tiles the shipped finder boxes this surely are painted out of a photo's table too
CONCEALED_KONG_FANS = (FanId.TWO_CONCEALED_KONGS, FanId.CONCEALED_KONG)
REPO_ROOT = Path(__file__).resolve().parent.parent
LABEL_FIXES = REPO_ROOT / "datasets" / "label_fixes"  # NAME.csv fixes the real folder called NAME


class FinderTrainError(RuntimeError):
    """Bad input to finder training (no data, no checkpoint to resume): reported without a traceback."""


@dataclass(frozen=True)
class Budget:
    """When a run must stop: `seconds` of training after set-up (data caching does not count)."""

    seconds: float
    progress_every_s: float = 60.0


# ---------------------------------------------------------------- data


def add_images(source: Path, target: Path, prefix: str, limit: int = 0, leave_out: str = "") -> int:
    """Every image of `source` (images/ + labels/, 43-class labels) but those whose name ends in `leave_out`, or
    `limit` of them spread evenly, linked into `target` (images/ + labels/) under `prefix`, its labels written
    in the finder's two classes; the number of images."""
    from training.train import spread

    (target / "images").mkdir(parents=True, exist_ok=True)
    (target / "labels").mkdir(parents=True, exist_ok=True)
    count = 0
    images = sorted(p for p in (source / "images").iterdir()
                    if p.suffix.lower() in IMAGE_SUFFIXES and not (leave_out and p.stem.endswith(leave_out)))
    for image in spread(images, limit) if limit else images:
        name = f"{prefix}_{image.stem}"
        link = target / "images" / f"{name}{image.suffix.lower()}"
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(image.resolve())
        label = finder_label(source / "labels" / f"{image.stem}.txt")
        (target / "labels" / f"{name}.txt").write_text(label, encoding="utf-8")
        count += 1
    return count


def draw_real_play(photos: Path, target: Path, per_photo: int, seed: int,
                   find_boxes: Callable[[Any], Any] | None = None) -> int:
    """`per_photo` scenes of each real photo's own tiles standing in a row, from a seat or a low webcam, on its
    own table (`training.play_scenes.compose`: the photo's labeled tiles cut out and its table with them painted
    out), written to `target` (images/, labels/ in the finder's two classes); the number of scenes.

    Real faces standing: rendered views at play show artwork, and every run trained on them alone lost the real
    webcam frames' standing tiles (`docs/notebook.md`, stop 69). `photos` is a folder of real photos (images/,
    43-class labels/); one photo of each source is used (Roboflow's augmented copies and `datasets.build`'s
    squeezed copies left out), photo k's scenes drawn from `seed + k`; a broken label file stops it, named.
    `find_boxes(picture)` gives the boxes (xyxy) a finder puts on the photo down to `REAL_PLAY_FLOOR`, painted
    out with the labeled ones so that a heap the labels leave out does not become the table (default: the
    shipped finder)."""
    import random

    import cv2
    import numpy as np

    from tileset.classes import BACK_ID
    from training.evaluate import DatasetError, read_truth
    from training.play_scenes import compose, cut_tiles, table_of

    if find_boxes is None:
        from vision.detector import TileDetector

        detector = TileDetector.load(REPO_ROOT / "models")

        def find_boxes(picture: Any) -> Any:
            return detector.find_boxes(picture, REAL_PLAY_FLOOR).xyxy

    (target / "images").mkdir(parents=True, exist_ok=True)
    (target / "labels").mkdir(parents=True, exist_ok=True)
    images = sorted(p for p in (photos / "images").iterdir()
                    if p.suffix.lower() in IMAGE_SUFFIXES and not p.name.startswith("squeezed_"))
    sources: set[str] = set()
    count = 0
    for k, image in enumerate(images):
        source = image.name.split(".rf.")[0]
        if source in sources:
            continue
        sources.add(source)
        picture = cv2.imread(str(image))
        if picture is None:
            continue
        try:
            truth = read_truth(image, picture.shape[1], picture.shape[0])
        except DatasetError as error:
            raise FinderTrainError(str(error)) from None
        faces = cut_tiles(picture, truth.xyxy[truth.class_id != BACK_ID])
        if not faces:
            continue
        backs = cut_tiles(picture, truth.xyxy[truth.class_id == BACK_ID])
        found = np.asarray(find_boxes(picture), np.float32).reshape(-1, 4)
        table = table_of(picture, np.concatenate([truth.xyxy, found]))
        rng = random.Random(seed + k)
        for j in range(per_photo):
            size = REAL_PLAY_SIZES[0] if rng.random() < 0.5 else REAL_PLAY_SIZES[1]
            scene = compose(faces, backs, table, rng, size, REAL_PLAY_KINDS[(k + j) % len(REAL_PLAY_KINDS)])
            name = f"realplay_{source[:40]}_{j}"
            cv2.imwrite(str(target / "images" / f"{name}.jpg"), scene.picture, [cv2.IMWRITE_JPEG_QUALITY, 92])
            lines = yolo_lines(scene.faces, FINDER_TILE, *size) + yolo_lines(scene.backs, FINDER_BACK, *size)
            (target / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
            count += 1
    return count


def write_data_yaml(folder: Path) -> Path:
    import yaml

    config = {"path": str(folder.resolve()), "train": "train/images", "val": "val/images", "names": DETECTOR_NAMES}
    path = folder / "data.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def prepare(real: Path, art: Path, out: Path, standing: int, hands: int, val_standing: int, seed: int,
            workers: int, real_train: int = 0, calibration: int = 0, log: Callable[[str], None] = print,
            kong_hands: int = 0, rooms: bool = True, real_play: int = 0) -> dict[str, Any]:
    """Draw and gather the finder's training data into `out` (see the module's docstring); its summary."""
    import subprocess

    from datasets import build
    from datasets.synth import ROOM_SUFFIX

    if not real.is_dir():
        raise FinderTrainError(f"no real photo folder at {real}")
    if not art.is_dir():
        raise FinderTrainError(f"no artwork folder at {art}")
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    hold_out = [arg for name in HELD_OUT_ART for arg in ("--hold-out", name)]
    parts: dict[str, Path] = {}

    def render(name: str, argv: list[str]) -> None:
        folder = out / "parts" / name
        if (folder / "synth.json").is_file():
            log(f"{name}: already drawn in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
            log(f"{name}: drawing ({time.monotonic() - started:.0f} s)")
            # its own process: a pool forked from this one (threads started by the real photos' build) can hang
            command = [sys.executable, "-m", "datasets.synth", *argv, "--art", str(art), "--out", str(folder), *hold_out,
                       "--workers", str(workers)]
            if subprocess.run(command, cwd=REPO_ROOT, check=False).returncode != 0:
                raise FinderTrainError(f"drawing {name} failed")
        parts[name] = folder

    real_folder = out / "parts" / "real"
    if not (real_folder / "data.yaml").is_file():
        log(f"real photos: split by session into {real_folder}")
        argv = [str(real_folder), "--real", str(real), "--real-test", "--seed", "0", "--squeezed-copies", "0.5",
                "--link", "--overwrite"]
        fixes = LABEL_FIXES / f"{real.resolve().name}.csv"
        if fixes.is_file():
            argv += ["--label-fixes", str(fixes)]
        if build.main(argv) != 0:
            raise FinderTrainError(f"building the real photos from {real} failed")
    if real_play:
        folder = out / "parts" / "real_play"
        done = folder / "real_play.json"
        if done.is_file():
            log(f"real_play: already drawn in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
            log(f"real_play: {real_play} scenes of each real train photo's tiles standing ({time.monotonic() - started:.0f} s)")
            with _split_view(real_folder, "train") as photos:
                drawn = draw_real_play(photos, folder, real_play, seed + REAL_PLAY_OFFSET)
            done.write_text(json.dumps({"scenes": drawn, "per_photo": real_play, "seed": seed + REAL_PLAY_OFFSET}) + "\n",
                            encoding="utf-8")
        parts["real_play"] = folder
    if standing:
        render("standing", ["--view", "standing", "--at-play", "--n", str(standing), "--seed", str(seed),
                            "--restyle", "0.3", "--empty", "0.2"])
    if hands:
        render("hands", ["--n", str(hands), "--seed", str(seed + HANDS_OFFSET), "--tables", "train", "--empty", "0.2",
                         "--restyle", "0.3", "--dice", "0.3"])
    if kong_hands:
        render("kong_hands", ["--n", str(kong_hands), "--seed", str(seed + KONG_HANDS_OFFSET), "--tables", "train",
                              "--restyle", "0.3", *(arg for fan in CONCEALED_KONG_FANS for arg in ("--fan", str(int(fan))))])
    if calibration:
        render("calibration", ["--layout", "calibration", "--n", str(calibration), "--seed", str(seed + CALIBRATION_OFFSET),
                               "--tables", "train", "--restyle", "0.3", "--back", "0.3"])
    if val_standing:
        render("standing_val", ["--view", "standing", "--at-play", "--n", str(val_standing),
                                "--seed", str(seed + VAL_OFFSET), "--restyle", "0.3"])

    finder = out / "finder"
    shutil.rmtree(finder, ignore_errors=True)
    counts = {
        "real_train": _add_split(real_folder, "train", finder / "train", "real", real_train),
        "real_val": _add_split(real_folder, "val", finder / "val", "real"),
    }
    for name in ("standing", "hands", "kong_hands", "calibration"):
        if name in parts:
            counts[name] = add_images(parts[name], finder / "train", name, leave_out="" if rooms or name != "standing" else ROOM_SUFFIX)
    if "real_play" in parts:
        counts["real_play"] = _link_finder_part(parts["real_play"], finder / "train")
    if "standing_val" in parts:
        counts["standing_val"] = add_images(parts["standing_val"], finder / "val", "standing")
    data_yaml = write_data_yaml(finder)
    summary = {"data": str(data_yaml), "images": counts, "seed": seed, "held_out_art": list(HELD_OUT_ART),
               "seconds": round(time.monotonic() - started)}
    (out / "prepared.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    log(f"finder data: {counts} -> {data_yaml}")
    return summary


@contextmanager
def _split_view(built: Path, split: str) -> Iterator[Path]:
    """One split of a `datasets.build` folder (images/SPLIT, labels/SPLIT) as a folder with images/ and labels/."""
    view = built / f"_{split}_view"
    shutil.rmtree(view, ignore_errors=True)
    view.mkdir()
    (view / "images").symlink_to((built / "images" / split).resolve())
    (view / "labels").symlink_to((built / "labels" / split).resolve())
    try:
        yield view
    finally:
        shutil.rmtree(view, ignore_errors=True)


def _add_split(built: Path, split: str, target: Path, prefix: str, limit: int = 0) -> int:
    """One split of a `datasets.build` folder added as `add_images` does."""
    with _split_view(built, split) as view:
        return add_images(view, target, prefix, limit)


def _link_finder_part(folder: Path, target: Path) -> int:
    """A folder whose labels are in the finder's classes already (`draw_real_play`) linked into `target` as is."""
    (target / "images").mkdir(parents=True, exist_ok=True)
    (target / "labels").mkdir(parents=True, exist_ok=True)
    count = 0
    for image in sorted((folder / "images").iterdir()):
        link = target / "images" / image.name
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(image.resolve())
        shutil.copyfile(folder / "labels" / f"{image.stem}.txt", target / "labels" / f"{image.stem}.txt")
        count += 1
    return count


# ---------------------------------------------------------------- training


@dataclass(frozen=True)
class TrainOptions:
    data: Path  # data.yaml in the finder's classes (`prepare`)
    work: Path
    minutes: float
    weights: Path | None = None  # start here (a new run); None with resume
    resume_from: Path | None = None  # go on from this checkpoint (its optimizer and epoch)
    imgsz: int = 512
    batch: int = 16
    lr0: float = 0.001
    freeze: int = 0
    workers: int = 2
    threads: int = 0  # torch threads; 0: every core
    cache: str = "ram"
    epochs: int = 300  # the course's length in epochs; the learning rate stays constant along it
    seed: int = 0
    val: bool = True
    keep_batchnorm: bool = True  # BatchNorm layers keep the statistics they came with (eval mode while training)
    mosaic: float = 1.0  # the share of training images made of four (0: whole images, as the shipped finder ended)
    save_period: int = 0  # keep weights/epochN.pt every N epochs (0: last.pt and best.pt only)


@dataclass(frozen=True)
class TrainRun:
    epochs: int  # finished in this run (a run stopped by its budget counts the epoch it stopped in)
    batches: int
    images: int
    seconds: float  # training, after set-up
    last: Path
    best: Path
    resume: Path

    def images_per_second(self) -> float:
        return self.images / self.seconds if self.seconds > 0 else 0.0


def keep_batchnorm(trainer: Any) -> None:
    """An ultralytics callback (each batch's start): every BatchNorm layer in eval mode, its statistics kept.

    With a CPU's batch of 16, mostly rendered, they drift from the statistics of real photos and the finder
    misses real tiles it found before."""
    import torch

    for module in trainer.model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.eval()


def time_boxed_callbacks(budget: Budget, threads: int, batch: int, log: Callable[[str], None] = print
                         ) -> tuple[dict[str, Callable[[Any], None]], dict[str, Any]]:
    """ultralytics callbacks: torch on `threads` threads (ultralytics sets 1 on a CPU), a stop between two
    batches once `budget.seconds` of training have passed (set-up and caching not counted), a progress line
    every `budget.progress_every_s`, and the counts for `TrainRun` (the second thing returned, filled as training goes)."""
    import torch

    state: dict[str, Any] = {"start": None, "batches": 0, "epochs": 0, "said": 0.0}

    def use_threads(_: Any) -> None:
        torch.set_num_threads(threads)

    def on_train_start(trainer: Any) -> None:
        use_threads(trainer)
        state["start"] = time.monotonic()
        state["said"] = state["start"]
        log(f"training: {len(trainer.train_loader.dataset)} images an epoch, epoch {trainer.start_epoch + 1} of "
            f"{trainer.epochs}, budget {budget.seconds / 60:.1f} min, {threads} torch threads")

    def on_batch_end(trainer: Any) -> None:
        state["batches"] += 1
        now = time.monotonic()
        spent = now - state["start"]
        if now - state["said"] >= budget.progress_every_s:
            state["said"] = now
            values = trainer.tloss.values() if hasattr(trainer.tloss, "values") else getattr(trainer.tloss, "tolist", list)()
            losses = " ".join(f"{float(v):.3f}" for v in values)
            log(f"  epoch {trainer.epoch + 1}: {state['batches'] * batch / spent:.1f} images/s, {spent / 60:.1f} of "
                f"{budget.seconds / 60:.1f} min, losses {losses}")
        if spent > budget.seconds:
            trainer.stop = True

    def on_epoch_end(trainer: Any) -> None:
        state["epochs"] += 1

    def on_fit_epoch_end(trainer: Any) -> None:  # also called by the final validation: said once an epoch
        if state.get("logged") == trainer.epoch:
            return
        state["logged"] = trainer.epoch
        metrics = {k.split("/")[-1]: round(float(v), 4) for k, v in (trainer.metrics or {}).items()
                   if k.startswith("metrics/")}
        log(f"epoch {trainer.epoch + 1} done ({(time.monotonic() - state['start']) / 60:.1f} min): val {metrics}")

    def on_model_save(trainer: Any) -> None:  # last.pt keeps its optimizer only until the run ends: keep a copy
        target = Path(trainer.save_dir) / RESUME_NAME
        partial = target.with_suffix(".tmp")
        shutil.copy2(trainer.last, partial)
        os.replace(partial, target)

    callbacks = {"on_pretrain_routine_end": use_threads, "on_train_start": on_train_start,
                 "on_train_epoch_start": use_threads, "on_train_batch_end": on_batch_end,
                 "on_train_epoch_end": on_epoch_end, "on_fit_epoch_end": on_fit_epoch_end,
                 "on_model_save": on_model_save}
    return callbacks, state


def _check_resumable(checkpoint: Path) -> None:
    if not checkpoint.is_file():
        raise FinderTrainError(f"nothing to resume: no checkpoint at {checkpoint}")
    try:
        _check_unfinished(checkpoint)
    except TrainError as error:
        raise FinderTrainError(f"{error}; start a new run from it with --weights instead") from None


def train(options: TrainOptions, log: Callable[[str], None] = print) -> TrainRun:
    """Fine-tune the finder (see the module's docstring) within `options.minutes`; what the run did."""
    from training.train import _share_tensors_through_files_if_shm_is_small, _ultralytics_environment

    if not options.data.is_file():
        raise FinderTrainError(f"no finder data at {options.data} (python -m training.finder prepare)")
    if options.minutes <= 0:
        raise FinderTrainError(f"--minutes must be above 0, not {options.minutes}")
    if options.resume_from is not None:
        _check_resumable(options.resume_from)
        start = options.resume_from
    elif options.weights is None or not options.weights.is_file():
        raise FinderTrainError(f"no finder weights to start from at {options.weights}")
    else:
        start = options.weights
    _ultralytics_environment()
    _share_tensors_through_files_if_shm_is_small()
    import ultralytics.utils.torch_utils as torch_utils
    from ultralytics import YOLO

    threads = options.threads or os.cpu_count() or 1
    torch_utils.NUM_THREADS = max(torch_utils.NUM_THREADS, threads)
    save_dir = (options.work / "finder").resolve()
    callbacks, state = time_boxed_callbacks(Budget(options.minutes * 60), threads, options.batch, log)
    if options.keep_batchnorm:
        callbacks["on_train_batch_start"] = keep_batchnorm
    model = YOLO(str(start))
    for event, callback in callbacks.items():
        model.add_callback(event, callback)
    if options.resume_from is not None:
        log(f"resuming from {start}")
        model.train(resume=str(start), data=str(options.data), save_dir=str(save_dir),
                    workers=options.workers, cache=options.cache, val=options.val)
    else:
        log(f"a new run from {start}")
        model.train(data=str(options.data), epochs=options.epochs, imgsz=options.imgsz, batch=options.batch,
                    device="cpu", workers=options.workers, seed=options.seed, deterministic=False,
                    project=str(save_dir.parent), name=save_dir.name, exist_ok=True, plots=False, amp=False,
                    optimizer="SGD", lr0=options.lr0, lrf=1.0, momentum=0.937, warmup_epochs=0,
                    cos_lr=False, freeze=options.freeze or None, cache=options.cache, close_mosaic=0,
                    patience=options.epochs + 1, degrees=5.0, val=options.val, verbose=False,
                    mosaic=options.mosaic, save_period=options.save_period or -1)
    weights = save_dir / "weights"
    run = TrainRun(state["epochs"], state["batches"], state["batches"] * options.batch,
                   time.monotonic() - state["start"] if state["start"] else 0.0,
                   weights / "last.pt", weights / "best.pt", save_dir / RESUME_NAME)
    if not run.last.is_file():
        raise FinderTrainError(f"training left no checkpoint in {weights}")
    log(f"done: {run.epochs} epoch(s), {run.batches} batches, {run.images_per_second():.1f} images/s; "
        f"weights {run.last}, {run.best}; go on with --resume (from {run.resume})")
    return run


def _network(checkpoint: Path) -> tuple[dict[str, Any], Any]:
    """An ultralytics checkpoint's dict and its network in float (the EMA's where a run kept one)."""
    import torch

    try:
        saved = torch.load(checkpoint, map_location="cpu", weights_only=False)
    except (OSError, RuntimeError, EOFError) as error:
        raise FinderTrainError(f"cannot read finder weights {checkpoint}: {error}") from None
    network = None
    if isinstance(saved, dict):
        network = saved["ema"] if saved.get("ema") is not None else saved.get("model")
    if network is None:
        raise FinderTrainError(f"{checkpoint} holds no network (an ultralytics checkpoint has 'model' or 'ema')")
    return saved, network.float()


def blend(base: Path, tuned: Path | list[Path], share: float, out: Path) -> Path:
    """Weights `share` of the way from `base` to `tuned` (several: their mean; see the module's docstring)."""
    import torch

    if not 0.0 <= share <= 1.0:
        raise FinderTrainError(f"--share must be between 0 and 1, not {share}")
    tuned = [tuned] if isinstance(tuned, Path) else tuned
    if not tuned:
        raise FinderTrainError("no fine-tune to blend")
    saved, network = _network(base)
    base_state = network.state_dict()
    tuned_states, imgsz = [], saved.get("train_args", {}).get("imgsz")
    for checkpoint in tuned:
        tuned_saved, tuned_network = _network(checkpoint)
        state = tuned_network.state_dict()
        imgsz = tuned_saved.get("train_args", {}).get("imgsz", imgsz)  # exported at the size it was tuned at
        if state.keys() != base_state.keys() or any(state[name].shape != base_state[name].shape for name in state):
            raise FinderTrainError(f"{base} and {checkpoint} are not the same network: they cannot be blended")
        tuned_states.append(state)
    mixed = {}
    for name, value in base_state.items():
        if value.is_floating_point():
            mean = sum(state[name] for state in tuned_states) / len(tuned_states)
            mixed[name] = value + share * (mean - value)
        else:
            mixed[name] = tuned_states[-1][name]
    network.load_state_dict(mixed)
    made = f"{share} of the way from {base.name} to the mean of {', '.join(path.name for path in tuned)}"
    weights = io.BytesIO()
    torch.save({**saved, "model": network.half(), "ema": None, "optimizer": None, "updates": None,
                "train_args": {**saved.get("train_args", {}), "imgsz": imgsz, "blend": made}}, weights)
    atomic_write_bytes(out, weights.getvalue())
    return out


# ---------------------------------------------------------------- command


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.finder", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("prepare", help="draw and gather the finder's training data")
    p.add_argument("--real", type=Path, required=True, help="real photos with manifest.csv (chinese-v4's form)")
    p.add_argument("--art", type=Path, required=True, help="artwork folder (datasets.art's form)")
    p.add_argument("--out", type=Path, required=True, help="data folder (DATA/finder/data.yaml is trained on)")
    p.add_argument("--standing", type=int, default=1500, help="webcam views at play (a fifth of them rooms without tiles)")
    p.add_argument("--no-rooms", action="store_true",
                   help="leave the rooms without tiles out of training (they are drawn all the same: the same views stay)")
    p.add_argument("--hands", type=int, default=400, help="hands laid out on the table families (a fifth bare tables)")
    p.add_argument("--kong-hands", type=int, default=0,
                   help="hands holding concealed kongs: their outer tiles are lying backs (default 0)")
    p.add_argument("--calibration", type=int, default=300,
                   help="tile sets laid out to be learned (calibration-layout.md): rows of faces close together")
    p.add_argument("--val-standing", type=int, default=60, help="webcam views at play for val (other seeds)")
    p.add_argument("--real-play", type=int, default=0,
                   help="scenes of each real train photo's own tiles standing on its own table (draw_real_play)")
    p.add_argument("--real-train", type=int, default=0,
                   help="real train photos taken, spread evenly (their split holds augmented and squeezed copies); "
                        "0 (the default): all")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    t = commands.add_parser("train", help="fine-tune the finder within a time budget; resumable")
    t.add_argument("--data", type=Path, required=True, help="DATA (prepare's --out) or its finder/data.yaml")
    t.add_argument("--minutes", type=float, required=True, help="training time budget (set-up not counted)")
    t.add_argument("--work", type=Path, default=Path("runs/finder"), help="run folder (WORK/finder/weights, resume.pt)")
    t.add_argument("--weights", type=Path, default=REPO_ROOT / "models" / "detector.pt",
                   help="a new run starts from these weights (default: the shipped finder's)")
    t.add_argument("--resume", action="store_true", help="go on from WORK/finder/resume.pt")
    t.add_argument("--resume-from", type=Path, default=None, help="go on from this checkpoint (e.g. models/detector_train.pt)")
    t.add_argument("--imgsz", type=int, default=512)
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--lr0", type=float, default=0.001)
    t.add_argument("--train-batchnorm", action="store_true",
                   help="let BatchNorm statistics follow the training batches (by default they are kept)")
    t.add_argument("--freeze", type=int, default=0, help="freeze the first N layers (10: the backbone)")
    t.add_argument("--workers", type=int, default=2, help="data-loading processes")
    t.add_argument("--threads", type=int, default=0, help="torch threads (default: every core)")
    t.add_argument("--cache", choices=("ram", "disk", "off"), default="ram")
    t.add_argument("--epochs", type=int, default=300, help="the course's length (constant learning rate)")
    t.add_argument("--no-val", action="store_true", help="no validation after each epoch")
    t.add_argument("--mosaic", type=float, default=1.0,
                   help="share of training images made of four (0: whole images, as the shipped finder's last epochs)")
    t.add_argument("--save-period", type=int, default=0, help="also keep weights/epochN.pt every N epochs")
    b = commands.add_parser("blend", help="weights part of the way from the finder a run started from to the run's")
    b.add_argument("--tuned", type=Path, nargs="+", required=True,
                   help="a fine-tune's checkpoints (WORK/finder/weights/epochN.pt); several are averaged first")
    b.add_argument("--base", type=Path, default=REPO_ROOT / "models" / "detector.pt", help="the weights it started from")
    b.add_argument("--share", type=float, default=0.5, help="0: the base, 1: the fine-tune")
    b.add_argument("--out", type=Path, required=True, help="the blended weights (.pt)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "prepare":
            prepare(args.real, args.art, args.out, args.standing, args.hands, args.val_standing, args.seed, args.workers,
                    args.real_train, args.calibration, lambda line: print(line, flush=True), args.kong_hands,
                    rooms=not args.no_rooms, real_play=args.real_play)
            return 0
        if args.command == "blend":
            print(blend(args.base, args.tuned, args.share, args.out))
            return 0
        data = args.data / "finder" / "data.yaml" if args.data.is_dir() else args.data
        resume_from = args.resume_from or (args.work / "finder" / RESUME_NAME if args.resume else None)
        options = TrainOptions(data=data, work=args.work, minutes=args.minutes,
                               weights=None if resume_from else args.weights, resume_from=resume_from,
                               imgsz=args.imgsz, batch=args.batch, lr0=args.lr0, freeze=args.freeze,
                               workers=args.workers, threads=args.threads,
                               cache="off" if args.cache == "off" else args.cache, epochs=args.epochs,
                               val=not args.no_val, keep_batchnorm=not args.train_batchnorm, mosaic=args.mosaic,
                               save_period=args.save_period)
        train(options, lambda line: print(line, flush=True))
    except FinderTrainError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
