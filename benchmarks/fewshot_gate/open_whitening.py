"""Stop 35: a photo of the set read with prototypes in a whitened feature space, offline, against the plain ones.

    python benchmarks/fewshot_gate/open_whitening.py capture PHOTO OUT.npz
        calibrates a throwaway copy of models/ from PHOTO (`--method fewshot`) and keeps what its head was
        made from: the train and check crops' features, the base crops' (the head's `others`)
    python benchmarks/fewshot_gate/open_whitening.py read CAPTURE.npz CROPS.npz [SHRINKAGE,... [RANK]]
        CROPS.npz: `crop_features.py` on the round's scenes. For the plain head and each shrinkage (RANK 0:
        the full matrix), the scale chosen, the held-out copies read right, and the scenes' crops read by the
        runtime's rule (a photo nearer the set than any other set's crop reads by SET_PROBS_OUTPUT): how many
        are misread, in how many photos, and the commonest confusions."""

import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import vision.calibrate as calibrate  # noqa: E402
import vision.fewshot as fewshot  # noqa: E402
from tileset.classes import CLASS_NAMES  # noqa: E402
from vision.settings import CalibrateSettings, DetectorSettings  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def capture(photo: Path, out: str) -> None:
    saved: dict[str, object] = {}
    make, choose = fewshot.prototypes_from, calibrate.choose_blend

    def prototypes(features, labels, ways, classes, members, clusters=1, seed=0):  # type: ignore[no-untyped-def]
        if "train_feats" not in saved and classes > 1:
            saved.update(train_feats=features, train_y=labels, train_w=ways, classes=classes, members=members,
                         clusters=clusters)
        return make(features, labels, ways, classes, members, clusters, seed)

    def blend(prototypes, members, check, base, settings=calibrate.DEFAULT):  # type: ignore[no-untyped-def]
        if "check_feats" not in saved:
            saved.update(check_probs=check[0], check_feats=check[1], check_y=check[2], base_probs=base[0],
                         base_feats=base[1])
        return choose(prototypes, members, check, base, settings)

    fewshot.prototypes_from, calibrate.choose_blend = prototypes, blend
    work = Path(tempfile.mkdtemp())
    try:
        shutil.copytree(ROOT / "models", work / "models", ignore=shutil.ignore_patterns("versions", "ACTIVE", "*.md"))
        calibrate.calibrate([photo], models_root=work / "models", method="fewshot", log=lambda _: None,
                            settings=replace(CalibrateSettings(), open_rank=0))
    finally:
        shutil.rmtree(work)
    np.savez(out, **saved)  # type: ignore[arg-type]
    print(out, {k: getattr(v, "shape", v) for k, v in saved.items()})


def read(cal: dict, scenes: dict, shrinkage: "float | None", rank: int) -> str:
    members = int(cal["members"])
    train, check, base, feats = cal["train_feats"], cal["check_feats"], cal["base_feats"], scenes["feats"]
    if shrinkage is not None:
        whitening = fewshot.whitening_from(train, cal["train_y"], cal["train_w"], shrinkage, rank or train.shape[1])
        train, check, base, feats = (whitening.apply(x, members) for x in (train, check, base, feats))
    prototypes = fewshot.prototypes_from(train, cal["train_y"], cal["train_w"], int(cal["classes"]), members,
                                         int(cal["clusters"]), 0)
    choice = calibrate.choose_blend(prototypes, members, (cal["check_probs"], check, cal["check_y"]),
                                    (cal["base_probs"], base), CalibrateSettings())
    head = fewshot.FewShotHead(prototypes, members, choice.scale, 1.0, choice.thresholds, others=base)
    probs, truth, photo, to_canonical = scenes["probs"], scenes["truth"], scenes["photo"], scenes["to_canonical"]
    share = DetectorSettings().stray_photo_share
    likeness = (head.cosines(feats) - head.open_thresholds()[None]).max(axis=1)
    margins = head.set_margins(feats)
    alone = to_canonical[probs.argmax(axis=1)]
    gated = to_canonical[head.blend(probs, feats).argmax(axis=1)]
    opened = to_canonical[head.blend_ungated(probs, feats).argmax(axis=1)]
    got = alone.copy()
    for p in np.unique(photo):
        one = photo == p
        if np.mean(margins[one] > 0) >= share:
            got[one] = opened[one]
        elif np.mean(likeness[one] >= 0) >= share:
            got[one] = gated[one]
    wrong = got != truth
    top = Counter(zip(truth[wrong], got[wrong])).most_common(5)
    return (f"scale {choice.scale:g}, held-out copies {choice.check_accuracy:.4f}; {wrong.sum()} of {len(truth)} "
            f"crops misread, in {len(np.unique(photo[wrong]))} photos | "
            + ", ".join(f"{CLASS_NAMES[t]}->{CLASS_NAMES[r]} x{n}" for (t, r), n in top))


if __name__ == "__main__":
    if sys.argv[1] == "capture":
        capture(Path(sys.argv[2]), sys.argv[3])
    else:
        cal, scenes = np.load(sys.argv[2]), np.load(sys.argv[3])
        shrinkages = [float(x) for x in sys.argv[4].split(",")] if len(sys.argv) > 4 else [0.5]
        rank = int(sys.argv[5]) if len(sys.argv) > 5 else 128
        print("plain:", read(cal, scenes, None, rank))
        for shrinkage in shrinkages:
            print(f"whitened, shrinkage {shrinkage:g}, rank {rank or 'full'}:", read(cal, scenes, shrinkage, rank))
