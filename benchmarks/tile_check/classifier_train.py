"""A 2-class (tile / table) yolo11n-cls fine-tuned from a classify checkpoint on the crops of
`mine_crops.py` (models/MODEL_CARD.md, stop 28: tried, not kept; needs the train extra).

    .venv/bin/python benchmarks/tile_check/classifier_train.py WEIGHTS EPOCHS SECONDS NAME CROPS RUNS

CROPS holds train/{tile,table} and val/{tile,table}; the run goes to RUNS/NAME. Stop 28:
`models/classifier.pt 8 900 ft CROPS RUNS` (8 epochs, 344 s on this CPU).
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from vision.train import _ultralytics_environment, train_time_boxed

_ultralytics_environment()
from ultralytics import YOLO

src, epochs, seconds, name, crops, runs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), *sys.argv[4:7]
model = YOLO(src)
t = time.time()
run = train_time_boxed(
    model,
    seconds,
    2,
    data=crops,
    epochs=epochs,
    imgsz=64,
    batch=64,
    device="cpu",
    workers=0,
    amp=False,
    plots=False,
    project=runs,
    name=name,
    exist_ok=True,
    optimizer="AdamW",
    lr0=0.001,
    warmup_epochs=0,
    verbose=False,
    fliplr=0.5,
    hsv_h=0.02,
    hsv_s=0.5,
    hsv_v=0.4,
    erasing=0.0,
    auto_augment=None,
)
print(name, run, f"{time.time() - t:.0f} s")
