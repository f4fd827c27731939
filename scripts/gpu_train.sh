#!/usr/bin/env bash
# One time-boxed training run of both tile models, made for a GPU machine that has python3 + torch
# but no ultralytics and no internet (everything it needs comes in .carry/, see prepare_gpu_carry.sh).
#
#   OUT=/some/dir bash scripts/gpu_train.sh              # on the GPU machine, from the repo root
#   QUICK=1 OUT=/tmp/q bash scripts/gpu_train.sh         # tiny end-to-end rehearsal on this CPU
#
# Stages (timestamps printed): install wheels -> synthetic scenes (all cores; artwork
# kde-traditional and gnome-smooth held out; hands over the older tables, TABLES_SHARE=0.25 over
# datasets.tables families with EMPTY_SHARE=0.2 empty tables, STANDING_SHARE=0.25 webcam views of
# standing tiles, DRAWN_SHARE=0.15 drawn sets, RESTYLE=0.3 of the hands restyled) -> dataset (real photos re-split by session + synth)
# -> detector and classifier trained at the same time on GPU 0, each time-boxed so the whole run
# ends within BUDGET_S (default 540 s) -> ONNX export -> evaluation on the real validation
# and test sessions (scenes of the held-out artwork are evaluated where that artwork is, not here).
# $OUT gets: detector.onnx classifier.onnx [detector43.onnx] eval.json log.txt checkpoints.tgz
# (best .pt of each model + ultralytics results.csv).  WITH_43=1 also trains a single 43-class
# detector for comparison; FROM_SHIPPED=1 fine-tunes the shipped weights instead of starting from
# scratch; CLASSIFIER=0 trains the finder alone (the GPU all its own; the shipped classifier.onnx is
# evaluated beside it); SQUEEZED=F sets datasets.build --squeezed-copies (default 0.5).  Launch: run(command="bash scripts/gpu_train.sh", carry=[".carry"]).
set -uo pipefail
cd "${REPO_ROOT:-$(dirname "$0")/..}"  # REPO_ROOT: run a copy of this script while editing the original
START=$(date +%s)
OUT=${OUT:-/tmp/gpu_train_out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
stage() { echo "=== [$(date -u +%H:%M:%S) +$(($(date +%s) - START))s] $*"; }
left() { echo $((BUDGET_S - ($(date +%s) - START))); }

QUICK=${QUICK:-0}
CARRY=${CARRY:-.carry}
WORK=${WORK:-/tmp/mcr_gpu_work}
SEED=${SEED:-0}  # scenes and training; the real photos are always split with datasets.build --seed 0, so that
                 # every run is judged on the same val sessions and never trains on them
CORES=$(nproc)
if [ "$QUICK" = 1 ]; then
  BUDGET_S=${BUDGET_S:-900}; DEVICE=cpu; CHUNK=6; MAX_ROUNDS=2; SYNTH_S=30
  DET_IMGSZ=256; CLS_IMGSZ=64; DET_BATCH=8; CLS_BATCH=32; LOADERS=1; EPOCHS=1; AMP=off; CACHE=off
  REAL_LIMIT=24; RESERVE_S=60
else
  BUDGET_S=${BUDGET_S:-540}; DEVICE=${DEVICE:-0}; CHUNK=$((CORES * 32)); MAX_ROUNDS=100
  SYNTH_S=${SYNTH_S:-70}; DET_IMGSZ=${DET_IMGSZ:-512}; CLS_IMGSZ=${CLS_IMGSZ:-64}; DET_BATCH=${DET_BATCH:-64}
  CLS_BATCH=${CLS_BATCH:-512}; LOADERS=$(((CORES - 2) / 2)); EPOCHS=400; AMP=bf16; CACHE=ram
  REAL_LIMIT=0; RESERVE_S=${RESERVE_S:-80}
fi
rm -rf "$WORK"; mkdir -p "$WORK"
stage "start: QUICK=$QUICK device=$DEVICE cores=$CORES budget=${BUDGET_S}s work=$WORK out=$OUT"

# ---------------------------------------------------------------- python with ultralytics
stage "install wheels"
PY=${PYTHON:-python3}
if [ "$QUICK" = 1 ] && [ -x .venv/bin/python ]; then PY=.venv/bin/python; fi
SITE=$WORK/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" "$CARRY"/whl/*.whl \
  || { echo "FATAL: wheel install failed"; exit 1; }
# polars (55 MB) cannot travel; ultralytics imports it only to read results.csv back (inside a
# try) and for plots (off).  A stub that fails those calls cleanly stands in where it is missing.
if [ "$QUICK" = 1 ] || ! $PY -c "import polars" 2>/dev/null; then
  mkdir -p "$SITE/polars"
  cat >"$SITE/polars/__init__.py" <<'EOF'
"""Stand-in for polars on a machine without it (see scripts/gpu_train.sh)."""
def __getattr__(name):
    raise AttributeError(f"polars stub: polars.{name} is not available here")
EOF
fi
export PYTHONPATH="$SITE:$PWD" YOLO_OFFLINE=1 YOLO_CONFIG_DIR=$WORK/yolo_config PYTHONUNBUFFERED=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} MPLBACKEND=Agg
# the fonts datasets.drawn and datasets.restyle draw with (prepare_gpu_carry.sh): a bare machine may have none
[ -d "$CARRY/fonts" ] && export MCR_FONT_DIRS="$PWD/$CARRY/fonts"
$PY -c "from datasets.restyle import system_fonts as f; l, c = f(); print(f'fonts: {len(l)} Latin, {len(c)} CJK')" 2>/dev/null
mkdir -p "$YOLO_CONFIG_DIR/Ultralytics"
# ultralytics wants a TTF at $YOLO_CONFIG_DIR/Ultralytics/Arial.ttf even with plots off: take matplotlib's
FONT=$($PY -c "import matplotlib, pathlib; print(pathlib.Path(matplotlib.get_data_path()) / 'fonts/ttf/DejaVuSans.ttf')" 2>/dev/null)
[ -f "$FONT" ] || FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
if [ -f "$FONT" ]; then cp "$FONT" "$YOLO_CONFIG_DIR/Ultralytics/Arial.ttf"; cp "$FONT" "$YOLO_CONFIG_DIR/Ultralytics/Arial.Unicode.ttf"
else echo "WARNING: no TTF font found"; fi
echo "shared memory: $(df -h /dev/shm 2>/dev/null | tail -1)"
$PY -c "import ultralytics, torch; print('ultralytics', ultralytics.__version__, 'torch', torch.__version__, 'cuda', torch.cuda.is_available())" \
  || { echo "FATAL: ultralytics does not import"; exit 1; }

# ---------------------------------------------------------------- real photos
REAL=$CARRY/real/chinese-v4
if [ "$REAL_LIMIT" -gt 0 ]; then
  stage "QUICK: a $REAL_LIMIT-photo copy of the real set"
  $PY - "$REAL" "$WORK/real_quick" "$REAL_LIMIT" <<'EOF'
import csv, shutil, sys
from pathlib import Path
src, dst, limit = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
rows = list(csv.DictReader((src / "manifest.csv").open()))
picked = [r for r in rows if r["split"] == "train"][: limit // 2] + [r for r in rows if r["split"] == "val"][: limit // 3] \
    + [r for r in rows if r["split"] == "test"][: limit // 6]
for r in picked:
    for sub, name in (("images", r["image"]), ("labels", Path(r["image"]).stem + ".txt")):
        (dst / sub / r["split"]).mkdir(parents=True, exist_ok=True)
        if (src / sub / r["split"] / name).exists():
            shutil.copy(src / sub / r["split"] / name, dst / sub / r["split"] / name)
with (dst / "manifest.csv").open("w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(picked)
for name in ("data.yaml", "README.md", "LICENSE.md"):
    shutil.copy(src / name, dst / name)
EOF
  REAL=$WORK/real_quick
fi

# ---------------------------------------------------------------- synthetic scenes
# Rounds of CHUNK scenes (all cores) until SYNTH_S seconds are used: every round finishes whole,
# so no half-written scene reaches the dataset however fast this machine turns out to be.
# Each round renders three kinds of scenes into their own folders, by share of its CHUNK scenes:
#   tables    TABLES_SHARE (0.25): hands over datasets.tables families ("train": every family but the
#             test-only mosaic and marble, which the finder is measured on and must never see), EMPTY_SHARE (0.2)
#             of them an empty table: hard negatives (patterns, books, papers, hands, cut-off tiles);
#   standing  STANDING_SHARE (0.25): webcam views of standing tiles (datasets.standing), over the same
#             "train" families; their crops feed the classifier too: whole faces (every labeled
#             face of 60 scenes was >= 85 % visible), seen as the live camera sees them;
#   drawn     DRAWN_SHARE (0.15): hands of DRAWN_SETS (4) drawn sets per round (datasets.drawn, set j of a round
#             --drawn 700000000 + SEED*10000 + round*DRAWN_SETS + j: suits and honours no artwork has, so
#             that the classifier meets sets of every style);
#   hand      the rest: hands over the older tables, RESTYLE (0.3) of them restyled (datasets.restyle:
#             captioned flowers, framed white dragons, corner indices).
# DICE (0.3) of the hands of every kind but standing have dice lying close beside the tiles (datasets.synth --dice).
# Seeds, so that no scene repeats one of another kind or of the measurements (test scenes use
# 91000000-97999999, calibration photos 777000xx): hand SEED*1000000 + round*CHUNK + i (SEED < 60),
# tables 60000000 + SEED*100000 + round*CHUNK + i, drawn 70000000 + SEED*100000 + round*CHUNK + i,
# standing 80000000 + SEED*100000 + round*CHUNK + i
# (rounds * CHUNK stays below 100000: MAX_ROUNDS * CHUNK = 100 * 32 * cores, 51200 on 16 cores).
TABLES_SHARE=${TABLES_SHARE:-0.25}; STANDING_SHARE=${STANDING_SHARE:-0.25}; EMPTY_SHARE=${EMPTY_SHARE:-0.2}
DRAWN_SHARE=${DRAWN_SHARE:-0.15}; RESTYLE=${RESTYLE:-0.3}; DRAWN_SETS=${DRAWN_SETS:-4}; DICE=${DICE:-0.3}
COUNTS=$(awk -v n="$CHUNK" -v t="$TABLES_SHARE" -v s="$STANDING_SHARE" -v d="$DRAWN_SHARE" -v e="$EMPTY_SHARE" -v r="$RESTYLE" -v c="$DICE" 'BEGIN {
  if (t !~ /^[0-9.]+$/ || s !~ /^[0-9.]+$/ || d !~ /^[0-9.]+$/ || e !~ /^[0-9.]+$/ || r !~ /^[0-9.]+$/ || c !~ /^[0-9.]+$/ \
      || t + s + d > 1 || e > 1 || r > 1 || c > 1) exit 1
  printf "%d %d %d\n", n * t + 0.5, n * s + 0.5, n * d + 0.5 }') \
  || { echo "FATAL: TABLES_SHARE ($TABLES_SHARE) + STANDING_SHARE ($STANDING_SHARE) + DRAWN_SHARE ($DRAWN_SHARE), EMPTY_SHARE ($EMPTY_SHARE), RESTYLE ($RESTYLE) and DICE ($DICE) must be shares of at most 1"; exit 1; }
read -r N_TABLES N_STANDING N_DRAWN <<<"$COUNTS"
N_HAND=$((CHUNK - N_TABLES - N_STANDING - N_DRAWN))
[ "$N_HAND" -ge 0 ] || { N_DRAWN=$((N_DRAWN + N_HAND)); N_HAND=0; }  # rounding of three shares
SYNTH_DIRS=()
if $PY -c "import datasets.synth" 2>/dev/null; then
  stage "synthetic scenes: rounds of $CHUNK ($N_HAND hand, $N_TABLES tables, $N_STANDING standing, $N_DRAWN drawn) for ${SYNTH_S}s, $CORES workers (held out: kde-traditional, gnome-smooth)"
  SYNTH_END=$(($(date +%s) + SYNTH_S))
  round=0; failed=0
  drawn_kinds=(); for ((j = 0; j < DRAWN_SETS; j++)); do drawn_kinds+=("drawn$j"); done
  while [ "$round" -lt "$MAX_ROUNDS" ]; do
    for kind in hand tables standing "${drawn_kinds[@]}"; do
      case $kind in
        hand) n=$N_HAND; seed=$((SEED * 1000000 + round * CHUNK)); args=(--restyle "$RESTYLE" --dice "$DICE") ;;
        drawn*) j=${kind#drawn}; per=$((N_DRAWN / DRAWN_SETS))  # the last set takes the remainder
          n=$((j == DRAWN_SETS - 1 ? N_DRAWN - per * j : per)); seed=$((70000000 + SEED * 100000 + round * CHUNK + j * per))
          args=(--drawn $((700000000 + SEED * 10000 + round * DRAWN_SETS + j)) --dice "$DICE") ;;
        tables) n=$N_TABLES; seed=$((60000000 + SEED * 100000 + round * CHUNK)); args=(--tables train --empty "$EMPTY_SHARE" --dice "$DICE") ;;
        standing) n=$N_STANDING; seed=$((80000000 + SEED * 100000 + round * CHUNK)); args=(--view standing --tables train) ;;
      esac
      [ "$n" -gt 0 ] || continue
      dir=$WORK/synth/r${round}_$kind; log=$WORK/synth_r${round}_$kind.log
      # every part of a round must end by SYNTH_END + 30 s, as the one command of the first round did
      if timeout $((SYNTH_END + 30 - $(date +%s) > 10 ? SYNTH_END + 30 - $(date +%s) : 10)) \
          $PY -m datasets.synth --art "$CARRY/art" --out "$dir" --n "$n" --seed "$seed" "${args[@]}" \
          --hold-out kde-traditional --hold-out gnome-smooth --workers "$CORES" >"$log" 2>&1; then
        if ! $PY -c 'import json, sys; from datasets.tables import TEST_ONLY
sys.exit(bool(set(json.load(open(sys.argv[1])).get("tables") or ()) & set(TEST_ONLY)))' "$dir/synth.json"; then
          echo "  round $round $kind: rendered over a test-only table family (left out)"; failed=1; continue  # never trained on
        fi
        SYNTH_DIRS+=("$dir"); echo "  round $round $kind: $(tail -1 "$log")"
      else
        echo "  synth round $round $kind failed or overran (left out):"; tail -3 "$log"; failed=1
      fi
    done
    [ "$failed" = 1 ] && break
    round=$((round + 1))
    # stop when another round (as long as the last one) would overrun
    per_round=$((($(date +%s) - SYNTH_END + SYNTH_S) / round))
    [ $(($(date +%s) + per_round)) -gt "$SYNTH_END" ] && break
  done
  counts=()
  for kind in hand tables standing drawn; do
    k=0; for d in "${SYNTH_DIRS[@]}"; do [[ $d == *_$kind* ]] && k=$((k + $(ls "$d/images" | wc -l))); done  # drawn: _drawn0, ...
    counts+=("$k $kind")
  done
  n=0; for d in "${SYNTH_DIRS[@]}"; do n=$((n + $(ls "$d/images" | wc -l))); done
  echo "synthetic scenes: $n in ${#SYNTH_DIRS[@]} folders ($(IFS=,; echo "${counts[*]}" | sed 's/,/, /g'))"
else
  echo "WARNING: datasets.synth is missing: training on real photos only"
fi

# ---------------------------------------------------------------- dataset
stage "dataset"
DATASET=$WORK/dataset
BUILD_ARGS=()
for d in "${SYNTH_DIRS[@]}"; do BUILD_ARGS+=(--synth "$d"); done
if $PY -c "import datasets.build" 2>/dev/null \
    && $PY -m datasets.build "$DATASET" --real "$REAL" "${BUILD_ARGS[@]}" --real-test --link --seed 0 \
      --squeezed-copies "${SQUEEZED:-0.5}"; then
  DATA_YAML=$DATASET/data.yaml
else
  echo "WARNING: datasets.build unavailable or failed: fallback split of the real photos by source_root (+ synth)"
  $PY - "$REAL" "$DATASET" "${SYNTH_DIRS[@]}" <<'EOF'
import csv, hashlib, sys, yaml
from pathlib import Path
from tileset.classes import CLASS_NAMES
real, out, synth = Path(sys.argv[1]), Path(sys.argv[2]), [Path(p) for p in sys.argv[3:]]
out.mkdir(parents=True, exist_ok=True)
lists = {"train": [], "val": []}
for r in csv.DictReader((real / "manifest.csv").open()):
    split = "val" if int(hashlib.sha1(r["source_root"].encode()).hexdigest(), 16) % 5 == 0 else "train"
    lists[split].append(str((real / "images" / r["split"] / r["image"]).resolve()))
for d in synth:
    lists["train"] += sorted(str(p.resolve()) for p in (d / "images").glob("*.jpg"))
for split, items in lists.items():
    (out / f"{split}.txt").write_text("\n".join(items) + "\n")
yaml.safe_dump({"path": str(out.resolve()), "train": "train.txt", "val": "val.txt",
                "names": dict(enumerate(CLASS_NAMES))}, (out / "data.yaml").open("w"), sort_keys=False)
print({k: len(v) for k, v in lists.items()})
EOF
  DATA_YAML=$DATASET/data.yaml
fi
[ -f "$DATA_YAML" ] || { echo "FATAL: no dataset"; exit 1; }

# ---------------------------------------------------------------- training
# detector (tile/back) and, unless CLASSIFIER=0, classifier (42 faces); WITH_43=1 adds a single 43-class detector
# for the comparison the issue asks for (it takes a third of the data-loading cores).
TRAIN=$WORK/train
KINDS=(detector)
[ "${CLASSIFIER:-1}" = 1 ] && KINDS+=(classifier)
[ "${WITH_43:-0}" = 1 ] && KINDS+=(detector43)
[ "$QUICK" = 1 ] || LOADERS=$(((CORES - 2) / ${#KINDS[@]}))
if [ "${CLASSIFIER:-1}" = 1 ]; then
  stage "classifier crops"
  $PY -m training.train classifier --data "$DATA_YAML" --work "$TRAIN" --imgsz "$CLS_IMGSZ" --workers "$CORES" \
    --seed "$SEED" --prepare-only || { echo "FATAL: classifier data"; exit 1; }
fi
$PY -m training.train detector --data "$DATA_YAML" --work "$TRAIN" --prepare-only || { echo "FATAL: detector data"; exit 1; }
TRAIN_S=$(($(left) - RESERVE_S))
# each run fits ultralytics' time box, once its data is scanned and cached, to end 30 s before this
DEADLINE=$(($(date +%s) + TRAIN_S - 15))
stage "train ${KINDS[*]} at once on device $DEVICE, $LOADERS loaders each, until $(date -u -d @$DEADLINE +%H:%M:%S) (hard stop in ${TRAIN_S}s)"
TIME_ARGS=(--deadline "$DEADLINE" --deadline-reserve 30)
[ "$QUICK" = 1 ] && TIME_ARGS=()  # one epoch
PIDS=()
for kind in "${KINDS[@]}"; do
  if [ "$kind" = classifier ]; then SIZE=(--imgsz "$CLS_IMGSZ" --batch "$CLS_BATCH"); else SIZE=(--imgsz "$DET_IMGSZ" --batch "$DET_BATCH"); fi
  # FROM_SHIPPED=1: fine-tune the shipped weights (models/<kind>.pt) instead of training from scratch
  if [ "${FROM_SHIPPED:-0}" = 1 ] && [ -f "models/$kind.pt" ]; then SIZE+=(--weights "models/$kind.pt" --warmup-epochs 0); fi
  timeout --signal=INT --kill-after=15 "$TRAIN_S" $PY -m training.train "$kind" --data "$DATA_YAML" --work "$TRAIN" \
    --device "$DEVICE" "${SIZE[@]}" --workers "$LOADERS" --epochs "$EPOCHS" "${TIME_ARGS[@]}" \
    --cache "$CACHE" --amp "$AMP" --seed "$SEED" >"$WORK/${kind}_train.log" 2>&1 &
  PIDS+=($!)
done
running() { for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
while running; do
  sleep 20
  for kind in "${KINDS[@]}"; do
    [ -f "$TRAIN/$kind/results.csv" ] && echo "  [+$(($(date +%s) - START))s] $kind: $(tail -1 "$TRAIN/$kind/results.csv" | tr -s ' ' | cut -c1-160)"
  done
done
for i in "${!KINDS[@]}"; do wait "${PIDS[$i]}"; echo "${KINDS[$i]} training exit $?"; done
CKPT=$WORK/checkpoints
mkdir -p "$CKPT"
for kind in "${KINDS[@]}"; do
  echo "--- $kind log tail"; tr '\r' '\n' <"$WORK/${kind}_train.log" | grep -v "━" | tail -8
  cp "$TRAIN/$kind/results.csv" "$CKPT/${kind}_results.csv" 2>/dev/null
  best=$TRAIN/$kind/weights/best.pt; [ -f "$best" ] || best=$TRAIN/$kind/weights/last.pt
  [ -f "$best" ] && cp "$best" "$CKPT/$kind.pt"
done
tar -C "$WORK" -czf "$OUT/checkpoints.tgz" checkpoints && echo "checkpoints.tgz: $(du -h "$OUT/checkpoints.tgz" | cut -f1)"

# ---------------------------------------------------------------- export + evaluation
stage "export ONNX"
MODELS=$WORK/models
if [ -f "$CKPT/classifier.pt" ]; then
  $PY -m training.export --detector "$CKPT/detector.pt" --classifier "$CKPT/classifier.pt" --out "$MODELS" 2>&1 | grep -v "━" | tail -3
else  # CLASSIFIER=0: the shipped classifier beside the new finder (in place first: the export loads the pair)
  mkdir -p "$MODELS" && cp models/classifier.onnx "$MODELS/"
  $PY -m training.export --detector "$CKPT/detector.pt" --out "$MODELS" 2>&1 | grep -v "━" | tail -3
fi
cp "$MODELS"/detector.onnx "$MODELS"/classifier.onnx "$OUT"/ 2>/dev/null
if [ -f "$CKPT/detector43.pt" ]; then
  $PY -m training.export --detector "$CKPT/detector43.pt" --out "$WORK/models43" 2>&1 | grep -v "━" | tail -2
  cp "$WORK/models43/detector.onnx" "$OUT/detector43.onnx" 2>/dev/null
fi
stage "evaluate"
EVAL_THREADS=$((CORES > 8 ? 8 : CORES))
# val: real sessions never trained on (best.pt was picked on them); test: sessions used for nothing else.
# The carried photos are 512 px copies (prepare_gpu_carry.sh): compare models on the originals, locally.
for split in val test; do
  grep -q "^$split:" "$DATA_YAML" || continue
  for models in models models43; do
    [ -f "$WORK/$models/detector.onnx" ] || continue
    timeout $(($(left) > 30 ? $(left) - 10 : 20)) $PY -m training.evaluate "$DATA_YAML" --split $split --models "$WORK/$models" \
      --threads "$EVAL_THREADS" --json >"$WORK/eval_${split}_$models.json" || echo "evaluation of $split ($models) failed or ran out of time"
  done
done
$PY - "$WORK" "$OUT/eval.json" <<'EOF'
import json, sys
from pathlib import Path
work, out = Path(sys.argv[1]), Path(sys.argv[2])
result = {}
for models, label in (("models", ""), ("models43", "_43class")):
    for split in ("val", "test"):
        path = work / f"eval_{split}_{models}.json"
        if path.exists() or models == "models":
            try:
                result[f"real_{split}{label}"] = json.loads(path.read_text())
            except (OSError, ValueError):
                result[f"real_{split}{label}"] = None
out.write_text(json.dumps(result, indent=1, ensure_ascii=False))
keys = ("images", "labeled_tiles", "read_accuracy", "recall", "precision", "images_read_exactly", "ms_per_image")
for name, summary in result.items():
    print(name, {k: summary.get(k) for k in keys} if summary else None)
    if summary:
        print("  confusions:", [(c["true"], c["read"], c["count"]) for c in summary["top_confusions"][:8]])
EOF
stage "done; files in $OUT:"
ls -la "$OUT"
