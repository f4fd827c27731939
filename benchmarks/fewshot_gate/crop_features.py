"""Stop 34: per photo of a dataset, the classifier's probabilities and features of each face crop the runtime
read (its boxes, paired with the labels), for `photo_tests.py` and `rebake.py`.

    python benchmarks/fewshot_gate/crop_features.py VERSION_DIR DATASET SPLIT OUT.npz [LIMIT]"""

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tileset.classes import BACK_ID  # noqa: E402
from vision.calibrate import Embedder
from vision.crops import cut_tiles
from vision.detector import TileDetector
from vision.evaluate import dataset_images, match_tiles, read_truth

ver, data, split, out = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
limit = int(sys.argv[5]) if len(sys.argv) > 5 else None
det = TileDetector.load(ver)
emb = Embedder(ver / "classifier_base.onnx", 2)
P, F, T, PHOTO, R = [], [], [], [], []
images = dataset_images(data, split)[:limit]
for n, image in enumerate(images):
    dets, (w, h) = det.detect_file(image)
    truth = read_truth(image, w, h)
    m = match_tiles(truth, dets)
    img = cv2.imread(str(image))
    pairs = [(t, p) for t, p in m.pairs if BACK_ID not in (truth.class_id[t], dets.class_id[p])]
    if not pairs:
        continue
    boxes = np.array([dets.xyxy[p] for _, p in pairs])  # the photo's own pixels, as `img`
    crops = cut_tiles(img, boxes, det.model_info.classifier_imgsz, det.settings)
    probs, feats = emb(crops)
    P.append(probs)
    F.append(feats)
    T.extend(int(truth.class_id[t]) for t, _ in pairs)
    R.extend(int(dets.class_id[p]) for _, p in pairs)
    PHOTO.extend([n] * len(pairs))
np.savez(
    out,
    probs=np.concatenate(P),
    feats=np.concatenate(F),
    truth=np.array(T),
    runtime=np.array(R),
    photo=np.array(PHOTO),
    to_canonical=emb.to_canonical,
)
print(out, len(T), "crops", len(set(PHOTO)), "photos")
