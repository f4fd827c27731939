"""Stop 34: which photos count as the calibrated set's, by the faces' thresholds and by nearness to other sets'
crops, and how their crops read by either rule (offline, from `crop_features.py`).

    python benchmarks/fewshot_gate/photo_tests.py VERSION_DIR BASE_CROPS.npz NAME=CROPS.npz ...

BASE_CROPS.npz: `crop_features.py` on the base photos that set the thresholds (the head's `others`); each
NAME=CROPS.npz: one set's photos. The tests are the runtime's (`TileDetector._of_the_set`, `_read_open`, with
`stray_photo_share`): half a photo's boxes past a face's threshold, or nearer the set than any base crop. Read
by the thresholds' rule, a photo of the set reads by the gated blend and another by the classifier alone; by
the nearness rule, a photo nearer the set reads by the blend with every gate open."""

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from vision.fewshot import FewShotHead  # noqa: E402
from vision.settings import DetectorSettings  # noqa: E402

head = FewShotHead.load(Path(sys.argv[1]) / "prototypes.npz")
head = replace(head, others=np.load(sys.argv[2])["feats"].astype(np.float32))
share = DetectorSettings().stray_photo_share
print("set: photos counted by the thresholds / by nearness; crops read right by the thresholds' rule / by nearness")
for name, path in (a.split("=", 1) for a in sys.argv[3:]):
    data = np.load(path)
    feats, probs, truth, photo = data["feats"], data["probs"], data["truth"], data["photo"]
    to_canonical = data["to_canonical"]
    likeness = (head.cosines(feats) - head.open_thresholds()[None]).max(axis=1)
    margins = head.set_margins(feats)
    alone = to_canonical[probs.argmax(axis=1)]
    gated = to_canonical[head.blend(probs, feats).argmax(axis=1)]
    opened = to_canonical[head.blend_ungated(probs, feats).argmax(axis=1)]
    by_thresholds, by_nearness = alone.copy(), alone.copy()
    counted = [0, 0]
    for p in np.unique(photo):
        one = photo == p
        of_the_set = np.mean(likeness[one] >= 0) >= share
        read_open = np.mean(margins[one] > 0) >= share
        counted[0] += of_the_set
        counted[1] += read_open
        by_thresholds[one] = (gated if of_the_set else alone)[one]
        by_nearness[one] = (opened if read_open else gated if of_the_set else alone)[one]
    print(
        f"{name}: {counted[0]} / {counted[1]} of {len(np.unique(photo))} photos; "
        f"{np.mean(by_thresholds == truth):.4f} / {np.mean(by_nearness == truth):.4f} of {len(truth)} crops"
    )
