#!/usr/bin/env bash
# One round of the calibration goal (issue 17; model card, stops 31-36): for kde-traditional, gnome-smooth and
# a drawn set, one rendered calibration photo and 200 scenes from seeds used for nothing else, a copy of models/
# calibrated from the photo, then the scenes read tile by tile and hand by hand with it.
#
#   bash benchmarks/calibration_round.sh ROUND CAL_SEED SCENES_SEED DRAWN_SEED [FIELD=VALUE ...]
#
# Set k (1..3) uses the photo seed CAL_SEED+k and the scenes seed SCENES_SEED+(k-1)*10000. Each FIELD=VALUE
# reads the same scenes again with that detector setting (`training.evaluate_read --set`): a control, written to
# ROUND/SET.control_FIELD=VALUE.log. Also: ROUND/SET.cal.json (the summary line), SET.cal.log (progress and the
# wall time), SET.eval.log (`training.evaluate`), SET.read.log (`training.evaluate_read`). ART (required): the
# artwork folder, in the form of datasets/fake_art.py's, holding kde-traditional and gnome-smooth. CONTROL_METHOD
# (e.g. auto): also calibrate a second copy of models/ from the same photo with that `--method`, and read the
# scenes with it: SET.method_METHOD.cal.json, .cal.log, .read.log.
# SETS (e.g. kde-traditional): only those of the three sets, each with the seeds it has in the full round.
# MODELS: the models folder copied and calibrated (default models/), e.g. a candidate from scripts/gpu_train.sh.
# A set whose photo and scenes are already in ROUND (both synth.json written) is not rendered again: link or
# copy ROUND/SET/cal and ROUND/SET/scn of another round to read the same scenes with other MODELS.
set -u
ROUND=$1; CAL_SEED=$2; SCENES_SEED=$3; DRAWN=$4; shift 4
cd "$(dirname "$0")/.."
PY=.venv/bin/python; ART=${ART:?set ART to the artwork folder, in the form of the one datasets/fake_art.py writes}; MODELS=${MODELS:-models}
mkdir -p "$ROUND"
# calibrate_copy DIR LOG [ARG...]: a fresh copy of models/ in DIR, calibrated from the set's photo (ARGs go to
# `vision calibrate`), its summary line in LOG.cal.json, progress and wall time in LOG.cal.log
calibrate_copy() {
  local copy=$1 log=$2; shift 2
  rm -rf "$copy"; mkdir -p "$copy"; cp "$MODELS"/*.onnx "$MODELS"/*.pt "$MODELS"/MODEL_CARD.md "$copy/"
  /usr/bin/time -f "wall %e s" $PY -m vision calibrate "$D"/cal/images/*.jpg --models "$copy" "$@" > "$log.cal.json" 2> "$log.cal.log"
}
k=0
for set in kde-traditional gnome-smooth drawn; do
  k=$((k + 1))
  case " ${SETS:-kde-traditional gnome-smooth drawn} " in *" $set "*) ;; *) continue ;; esac
  if [ "$set" = drawn ]; then only=(--only gnome-smooth --drawn "$DRAWN"); else only=(--only "$set"); fi
  D=$ROUND/$set
  if [ -f "$D/cal/synth.json" ] && [ -f "$D/scn/synth.json" ]; then
    echo "$set: the photo and scenes in $D are read again (rendered before)"
  else
    $PY -m datasets.synth --art "$ART" --out "$D/cal" --n 1 --seed $((CAL_SEED + k)) --layout calibration "${only[@]}" \
      > "$D.synth.log" 2>&1
    $PY -m datasets.synth --art "$ART" --out "$D/scn" --n 200 --seed $((SCENES_SEED + (k - 1) * 10000)) "${only[@]}" \
      --workers 2 >> "$D.synth.log" 2>&1
  fi
  calibrate_copy "$D/models" "$D"
  $PY -m training.evaluate "$D/scn" --keep-backs --models "$D/models" > "$D.eval.log" 2>&1
  $PY -m training.evaluate_read "$D/scn" --models "$D/models" > "$D.read.log" 2>&1
  if [ -n "${CONTROL_METHOD:-}" ]; then
    calibrate_copy "$D/models_$CONTROL_METHOD" "$D.method_$CONTROL_METHOD" --method "$CONTROL_METHOD"
    $PY -m training.evaluate_read "$D/scn" --models "$D/models_$CONTROL_METHOD" > "$D.method_$CONTROL_METHOD.read.log" 2>&1
  fi
  for setting in "$@"; do
    $PY -m training.evaluate_read "$D/scn" --models "$D/models" --set "$setting" > "$D.control_$setting.log" 2>&1
  done
  echo "$set done $(date -u +%H:%M:%S): $(sed -n 2p "$D.read.log")"
done
