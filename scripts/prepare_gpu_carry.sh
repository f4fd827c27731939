#!/usr/bin/env bash
# Build .carry/ (git-ignored): what scripts/gpu_train.sh needs on a GPU machine that has
# python3 + torch but no ultralytics and no internet.  Everything must fit, with the repo,
# in the 64 MiB that travels:
#   .carry/whl/    wheels: ultralytics and those of its requirements the machine lacks
#                  (polars is 55 MB, so gpu_train.sh installs a stub instead: ultralytics only
#                  imports it to read results.csv back and for plots, both optional)
#   .carry/real/chinese-v4/   one copy per source photo of the real set (manifest, labels, JPEGs), each
#                  photo re-encoded with its long side at REAL_SIDE px (default 512, the detector's
#                  training size; the set's 640 px photos as they are would not fit beside the repo,
#                  whose models/ alone take 25 MiB) at JPEG quality REAL_QUALITY (default 65; at their 75 repo + carry, 62.2 MiB,
#                  were refused as over 64 MiB: the tool counts more than the files' bytes);
#                  REAL_SIDE=0 copies them unchanged.  YOLO labels are relative: they stay as they are.
#                  NB: gpu_train.sh then evaluates on these copies, not on the 640 px originals: the
#                  shipped models read 96.15 % of the real val tiles on them, 97.58 % on the originals
#                  (recall 97.78 / 99.02 %), so compare models on the originals, with the ONNX it returns.
#   .carry/fonts/  this machine's fonts, cut down to the glyphs datasets.drawn and datasets.restyle draw
#   .carry/art/    synthetic-scene artwork, minus the held-out sets (kde-traditional, gnome-smooth),
#                  KDE egypt, SVG sources and preview sheets.  The table families (datasets.tables) and
#                  the standing-tile webcam views (datasets.standing) are procedural: nothing to carry.
# usage: [REAL_SIDE=512] [REAL_QUALITY=65] bash scripts/prepare_gpu_carry.sh DATASETS_DIR
#   DATASETS_DIR holds real/chinese-v4 and art/ (the datasets folder beside the repository, e.g. ../shared/datasets)
# Ends with exit status 1 when repo + carry exceed 60 MiB (64 may travel, but the tool counted 62.2 MiB of bytes as over).
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${1:?usage: bash scripts/prepare_gpu_carry.sh DATASETS_DIR (holding real/chinese-v4 and art/)}
CARRY=.carry
PY=${PYTHON:-.venv/bin/python}
rm -rf "$CARRY"
mkdir -p "$CARRY/whl"

# Versions pinned to what the local .venv trains with, so both machines run the same code.
ULTRA=$($PY -c "import importlib.metadata as m; print(m.version('ultralytics'))")
THOP=$($PY -c "import importlib.metadata as m; print(m.version('ultralytics-thop'))")
SLIM=$($PY -c "import importlib.metadata as m; print(m.version('onnxslim'))")
for spec in "ultralytics==$ULTRA" "ultralytics-thop==$THOP" "onnxslim==$SLIM"; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$CARRY/whl" "$spec" 2>&1 | grep -v "is ignored: it is neither" || true
done

"$PY" - "$SHARED" "$CARRY" "${REAL_SIDE:-512}" "${REAL_QUALITY:-65}" <<'EOF'
"""Copy the real photos (one per source photo) and the artwork the synthetic scenes need."""
import csv
import shutil
import sys
from collections import defaultdict
from pathlib import Path

import cv2

shared, carry = Path(sys.argv[1]), Path(sys.argv[2])
real_side, real_quality = int(sys.argv[3]), int(sys.argv[4])
src = shared / "real" / "chinese-v4"
dst = carry / "real" / "chinese-v4"


def copy_photo(source: Path, target: Path) -> None:
    """The photo with its long side at most `real_side` px (0: unchanged), else as it is."""
    image = cv2.imread(str(source), cv2.IMREAD_COLOR) if real_side > 0 else None
    if image is None or max(image.shape[:2]) <= real_side:
        shutil.copy2(source, target)
        return
    scale = real_side / max(image.shape[:2])
    size = (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale)))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    ok, jpeg = cv2.imencode(target.suffix or ".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, real_quality])
    if not ok:
        raise SystemExit(f"could not encode {source}")
    target.write_bytes(jpeg.tobytes())


def label_area(split: str, image: str) -> float:
    path = src / "labels" / split / (Path(image).stem + ".txt")
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    return sum(float(r[3]) * float(r[4]) for r in rows)


rows = list(csv.DictReader((src / "manifest.csv").open()))
by_root_split = defaultdict(list)
for row in rows:
    by_root_split[(row["source_root"], row["split"])].append(row)
# Roboflow made 3 augmented copies of each train photo; keep the one with the tightest boxes.
kept = [min(group, key=lambda r: label_area(r["split"], r["image"])) for group in by_root_split.values()]
for row in kept:
    split, image = row["split"], row["image"]
    for sub, name in (("images", image), ("labels", Path(image).stem + ".txt")):
        (dst / sub / split).mkdir(parents=True, exist_ok=True)
        if (src / sub / split / name).exists():
            copy = copy_photo if sub == "images" else shutil.copy2
            copy(src / sub / split / name, dst / sub / split / name)
with (dst / "manifest.csv").open("w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(kept)
for name in ("data.yaml", "README.md", "LICENSE.md"):
    shutil.copy2(src / name, dst / name)
sizes = f"long side at most {real_side} px, JPEG quality {real_quality}" if real_side > 0 else "as they are"
print(f"real: kept {len(kept)} of {len(rows)} images (one per source photo and split; {sizes})")

art_src, art_dst = shared / "art", carry / "art"
KEEP = {
    "kde-mahjongg": lambda r: r["tileset"] in {"default", "classic", "jade"},
    "gl-mahjongtile": lambda r: True,
    "fluffystuff-riichi": lambda r: r["variant"] == "Regular",
}
for folder, keep in KEEP.items():
    (art_dst / folder).mkdir(parents=True)
    with (art_src / folder / "mapping.tsv").open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f, delimiter="\t")
        fields, mapping = reader.fieldnames, [r for r in reader if keep(r)]
    with (art_dst / folder / "mapping.tsv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(mapping)
    for row in mapping:
        if row.get("png"):
            (art_dst / folder / row["png"]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(art_src / folder / row["png"], art_dst / folder / row["png"])
    for license_file in ("LICENSE.md", "copyright", "GPL-2.txt"):
        if (art_src / folder / license_file).exists():
            shutil.copy2(art_src / folder / license_file, art_dst / folder / license_file)
shutil.copy2(art_src / "README.md", art_dst / "README.md")
print("art: " + ", ".join(KEEP) + " (kde: default, classic, jade)")
EOF

# Fonts for datasets.drawn and datasets.restyle (the GPU machine may have none): this machine's fonts
# (datasets.restyle.system_fonts) cut down to the glyphs those modules draw (printable ASCII and every CJK
# character in their source), a few KiB each; gpu_train.sh points MCR_FONT_DIRS at them.
"$PY" - "$CARRY/fonts" <<'EOF'
import string
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

from datasets.restyle import system_fonts

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
source = Path("datasets/drawn.py").read_text(encoding="utf-8") + Path("datasets/restyle.py").read_text(encoding="utf-8")
cjk_text = "".join(sorted({c for c in source if ord(c) > 0x2e80}))
latin, cjk = system_fonts()
if not cjk:
    print("WARNING: no CJK font here (fonts-wqy-zenhei): drawn sets on the GPU machine will have no characters or honours")
for group, text in ((latin, string.printable), (cjk, string.printable + cjk_text)):
    for path in group:
        font = TTFont(path, fontNumber=0)
        options = subset.Options()
        options.name_IDs, options.layout_features, options.notdef_outline = ["*"], ["*"], True
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=text)
        subsetter.subset(font)
        font.save(out / (path.stem + ".ttf"))
print(f"fonts: {len(latin)} Latin, {len(cjk)} CJK ({len(cjk_text)} CJK glyphs), cut down to what the scenes draw")
EOF

du -sh "$CARRY"/* | sed 's/^/carry: /'
git ls-files -z --cached --others --exclude-standard | python3 -c "
import os, sys
tree = sum(os.path.getsize(f) for f in sys.stdin.read().split(chr(0)) if f and os.path.isfile(f))
carry = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk('$CARRY') for f in fs)
total = (tree + carry) / 2**20
print(f'travels: repo tree {tree / 2**20:.1f} MiB + $CARRY {carry / 2**20:.1f} MiB = {total:.1f} MiB (limit 60 here, 64 for the tool)')
if total > 60:
    sys.exit('too big: a run carrying $CARRY would be refused; make it smaller (REAL_SIDE, fewer art sets)')
"
