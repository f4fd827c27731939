"""Copy a calibrated models folder and bake its head again, with other sets' crops or without them.

    python benchmarks/fewshot_gate/rebake.py SOURCE_MODELS TARGET_MODELS [CROPS.npz]

CROPS.npz (`crop_features.py` on base photos): their features become the head's `others`; without it the
head is baked without other sets' crops (the gate per crop alone, as before stop 34)."""

import shutil
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from vision.fewshot import FewShotHead, bake  # noqa: E402
from vision.registry import active_dir  # noqa: E402

src, dst = Path(sys.argv[1]), Path(sys.argv[2])
if dst.exists():
    shutil.rmtree(dst)
shutil.copytree(src, dst)
version = active_dir(dst)
head = FewShotHead.load(version / "prototypes.npz")
others = np.load(sys.argv[3])["feats"].astype(np.float16).astype(np.float32) if len(sys.argv) > 3 else None
head = replace(head, others=others)
bake(version / "classifier_base.onnx", head, version / "classifier.onnx", base_output=True)
head.save(version / "prototypes.npz")
print(version, (version / "classifier.onnx").stat().st_size, "bytes")
