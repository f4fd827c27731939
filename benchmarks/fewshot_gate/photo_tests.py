"""Stop 34: which photos count as the calibrated set's, by half their boxes nearer the set than any base crop,
and how the crops read with the gate opened by photo (offline, from `crop_features.py`).

    python benchmarks/fewshot_gate/photo_tests.py VERSION_DIR BASE_CROPS.npz NAME=CROPS.npz ..."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from vision.fewshot import FewShotHead

head = FewShotHead.load(sys.argv[1] + "/prototypes.npz")
base = np.load(sys.argv[2])
sets = {k: np.load(v) for k, v in (a.split("=") for a in sys.argv[3:])}
thr = head.open_thresholds()
bf = base["feats"]


def own(f):
    return head.cosines(f).max(1)


def other(f, ex):
    return (f @ ex.T).max(1) / head.members


for name, ex in [("all base crops", bf)]:
    for k, d in sets.items():
        m = own(d["feats"]) - other(d["feats"], ex)
        per = [np.mean(m[d["photo"] == p] > 0) for p in np.unique(d["photo"])]
        med = [np.median(m[d["photo"] == p]) for p in np.unique(d["photo"])]
        print(
            f"{name} {k}: crop share own>other {np.mean(m > 0):.3f}; photos share>0.5: {np.mean(np.array(per) > 0.5):.3f}; "
            f"photo median margin pct 5/50/95: {np.percentile(med, [5, 50, 95]).round(3)}"
        )
print()


def run(d, photo_rule, crop_gate, scale=head.scale):
    cos = head.cosines(d["feats"])
    m = cos.max(1) - other(d["feats"], bf)
    base_ = d["to_canonical"][d["probs"].argmax(1)]
    out = base_.copy()
    n = 0
    for p in np.unique(d["photo"]):
        s = d["photo"] == p
        if not photo_rule(m[s]):
            continue
        n += 1
        g = crop_gate(m[s])[:, None].astype(np.float32)
        logits = head.keep * np.log(d["probs"][s] + 1e-6) + scale * g * cos[s]
        out[s] = d["to_canonical"][logits.argmax(1)]
    return (out == d["truth"]).mean(), n


rules = {
    "share>0.5, gate own>other": (lambda m: np.mean(m > 0) > 0.5, lambda m: m > 0),
    "share>0.5, ungated": (lambda m: np.mean(m > 0) > 0.5, lambda m: m > -9),
    "share>0.5, gate m>-0.05": (lambda m: np.mean(m > 0) > 0.5, lambda m: m > -0.05),
    "median>-0.01, ungated": (lambda m: np.median(m) > -0.01, lambda m: m > -9),
    "median>-0.01, gate m>-0.05": (lambda m: np.median(m) > -0.01, lambda m: m > -0.05),
    "share>0.4, ungated": (lambda m: np.mean(m > 0) > 0.4, lambda m: m > -9),
}
for name, (pr, cg) in rules.items():
    for sc in (80.0, 160.0, 320.0):
        print(f"{name:32s} scale {sc:4.0f}:", "  ".join(f"{k} {a:.4f} ({n})" for k, (a, n) in ((k, run(d, pr, cg, sc)) for k, d in sets.items())))
