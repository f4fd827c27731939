"""Stop 34: on a calibrated round's scenes, how often the few-shot head's gate opens, and which reading is right.

    python benchmarks/fewshot_gate/gate_statistics.py ROUND  (ROUND/models: calibrated; ROUND/SCN: labeled scenes)

For every face tile the runtime read: the gate (a face's threshold passed), the nearest prototype, the
classifier alone, the gated blend; each misread tile on a line."""

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tileset.classes import BACK_ID, CLASS_NAMES, is_flower
from vision.calibrate import Embedder
from vision.crops import cut_tiles
from vision.detector import TileDetector
from vision.evaluate import dataset_images, match_tiles, read_truth
from vision.fewshot import FewShotHead
from vision.registry import active_dir

root = Path(sys.argv[1])
ver = active_dir(root / "models")
det = TileDetector.load(ver)
emb = Embedder(ver / "classifier_base.onnx", 2)
head = FewShotHead.load(ver / "prototypes.npz")
names = emb.names
stats = []
for image in dataset_images(root / "SCN", "val"):
    dets, (w, h) = det.detect_file(image)
    truth = read_truth(image, w, h)
    m = match_tiles(truth, dets)
    img = cv2.imread(str(image))
    boxes, tcs, pcs = [], [], []
    for t, p in m.pairs:
        boxes.append(dets.xyxy[p])
        tcs.append(int(truth.class_id[t]))
        pcs.append(int(dets.class_id[p]))
    if not boxes:
        continue
    crops = cut_tiles(img, np.array(boxes), det.model_info.classifier_imgsz, det.settings)
    probs, feats = emb(crops)
    cos = head.cosines(feats)
    gate = (cos > head.open_thresholds()[None]).any(axis=1)
    blended = head.blend(probs, feats)
    for k in range(len(boxes)):
        if BACK_ID in (tcs[k], pcs[k]):
            continue
        tcol = emb.column_of(np.array([tcs[k]]))[0]
        stats.append(
            (tcs[k] == pcs[k], gate[k], cos[k].argmax() == tcol, probs[k].argmax() == tcol, blended[k].argmax() == tcol, CLASS_NAMES[tcs[k]])
        )
        if tcs[k] != pcs[k]:
            print(
                f"{image.stem[:9]} {CLASS_NAMES[tcs[k]]}->{CLASS_NAMES[pcs[k]]} gate {int(gate[k])} "
                f"cosT {cos[k, tcol]:.3f} thrT {head.open_thresholds()[tcol]:.3f} "
                f"nearest {names[cos[k].argmax()]} {cos[k].max():.3f} clf {names[probs[k].argmax()]} {probs[k].max():.2f} "
                f"blend {names[blended[k].argmax()]}"
            )
s = np.array([x[:5] for x in stats])
fl = np.array([is_flower(x[5]) for x in stats])
for label, rows in (("tiles", s), ("flowers", s[fl])):
    print(
        f"{label} {len(rows)}: runtime right {rows[:, 0].mean():.4f}, gate open {rows[:, 1].mean():.4f}, nearest prototype "
        f"right {rows[:, 2].mean():.4f}, classifier right {rows[:, 3].mean():.4f}, blend right {rows[:, 4].mean():.4f}"
    )
