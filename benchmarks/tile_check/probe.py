"""A logistic probe (PCA + Newton) telling tiles from false boxes on the face classifier's pooled features,
fitted on mined sets and judged on others (models/MODEL_CARD.md, stop 28: tried, not kept).

    MINED=DIR .venv/bin/python benchmarks/tile_check/probe.py TRAIN,SETS TEST,SETS K L2 runtime|context|both

DIR holds NAME.npz (`mine.py`, the runtime's crops) and NAMEc.npz (`MARGIN=0.35 mine.py`, context crops).
Prints, per test set, tiles lost and false boxes kept (of those at finder confidence >= 0.25) at several
thresholds, then with the probe asked only below a finder confidence. Stop 28 ran
`PS,PD,RT TM,TE,TC,RV 256 1 runtime` and `... 256 1 context`.
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import os
import sys

import numpy as np

D = os.environ.get("MINED", ".") + "/"
KEYS = ("feats", "probs", "conf", "cls", "pos", "image", "iou_any")


def load0(name, clean=False):
    z = np.load(D + name + ".npz")
    d = {k: z[k] for k in z.files}
    if clean:
        ok = d["pos"] | (d["iou_any"] < 0.05)
        for k in KEYS:
            d[k] = d[k][ok]
    return d


def load(name, clean=False):
    if MODE == "runtime":
        return load0(name, clean)
    a, b = load0(name), load0(name + "c")
    a["feats"] = np.hstack([a["feats"], b["feats"]]) if MODE == "both" else b["feats"]
    a["probs"] = a["probs"] if MODE == "both" else b["probs"]
    if clean:
        ok = a["pos"] | (a["iou_any"] < 0.05)
        for k in KEYS:
            a[k] = a[k][ok]
    return a


MODE = sys.argv[5]
train_sets = sys.argv[1].split(",")
test_sets = sys.argv[2].split(",")
k = int(sys.argv[3])
l2 = float(sys.argv[4])


def X_of(d):
    return np.hstack(
        [d["feats"].astype(np.float32), np.log(d["probs"].astype(np.float32).max(1, keepdims=True) + 1e-6)]
    )


tr = [load(s, True) for s in train_sets]
X = np.vstack([X_of(d) for d in tr])
y = np.concatenate([d["pos"] for d in tr]).astype(np.float64)
mu = X.mean(0)
U, S, Vt = np.linalg.svd(X - mu, full_matrices=False)
P = Vt[:k].T


def proj(X):
    Z = (X - mu) @ P
    return np.hstack([Z, np.ones((len(Z), 1))])


Z = proj(X).astype(np.float64)
sw = np.where(y > 0, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
w = np.zeros(Z.shape[1])
for it in range(30):
    p = 1 / (1 + np.exp(-np.clip(Z @ w, -30, 30)))
    g = Z.T @ ((p - y) * sw) + l2 * np.r_[w[:-1], 0]
    H = (Z * (p * (1 - p) * sw)[:, None]).T @ Z + l2 * np.eye(len(w))
    w -= np.linalg.solve(H, g)
print(f"train {len(y)} boxes, {int(y.sum())} tiles; k {k} l2 {l2}")
for s in test_sets:
    d = load(s)
    sc = proj(X_of(d)) @ w
    c = d["conf"] >= 0.25
    pos = d["pos"]
    neg = c & ~pos & (d["iou_any"] < 0.05)
    tiles = sc[c & pos]
    false = sc[neg]
    out = []
    for lost in (0, 1, 2, 5, 10):
        thr = np.sort(tiles)[lost] - 1e-9 if len(tiles) > lost else -np.inf
        if not len(tiles):
            thr = None
        out.append(f"lose {lost}: false {int((false >= thr).sum()) if thr is not None else '-'}")
    # fixed thresholds
    fx = " | ".join(
        f"t{t:+d}: lost {int((tiles < t).sum())} false {int((false >= t).sum())}/{len(false)}" for t in (-6, -4, -2, 0)
    )
    print(f"{s}: {len(tiles)} tiles, {len(false)} false; " + "; ".join(out) + " || " + fx)
np.savez(D + f"probe_k{k}.npz", w=w, mu=mu, P=P)
print("--- probe only boxes below a finder confidence")
for cmax in (0.6, 0.75, 0.85, 1.01):
    for t in (-5, -4, -3):
        parts = []
        for s in test_sets:
            d = load(s)
            sc = proj(X_of(d)) @ w
            c = d["conf"] >= 0.25
            pos = d["pos"]
            neg = c & ~pos
            drop = c & (d["conf"] < cmax) & (sc < t)
            per0 = np.bincount(d["image"][neg], minlength=int(d["n_images"]))
            per1 = np.bincount(d["image"][neg & ~drop], minlength=int(d["n_images"]))
            parts.append(
                f"{s}: lost {int((drop & pos).sum())}, false {int(neg.sum())}->{int((neg & ~drop).sum())} "
                f"(>1: {int((per0 > 1).sum())}->{int((per1 > 1).sum())}), probed {np.mean(d['conf'][c] < cmax):.0%}"
            )
        print(f"conf<{cmax} t{t}: " + "; ".join(parts))
