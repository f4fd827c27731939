"""Label photos: walk a folder least-sure first, fix faces, delete/add boxes, mark backs; saves as it goes.

Every change is written at once (atomically, under the photo's lock, the previous label file kept
in `labels/.history/`), so closing the browser never loses more than the click in flight, and
"Undo" walks back through that history.  A photo is reviewed only when "Looks right" is pressed
after its last edit.  Boxes are numbered in reading order (rows top to bottom, left to right);
several can be picked at once and fixed, deleted or given a row of faces in one action.  Picks are
box numbers, not places in a list, and every edit carries the revision of the labels the page showed:
when another tab or program saved the photo in between, the edit is refused with what changed, and
the page shows the labels as they are now.  The
"Model in use" panel lists the model versions and switches between them (`vision.registry`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import streamlit as st

from appui import jobs
from appui.i18n import message_text, t
from appui.label_boxes import box_numbers, boxes_inside, canvas_action, class_label, draw_boxes, parse_faces
from appui.widgets import data_folder_input, model_versions
from tileset.atomic_files import atomic_write_bytes
from tileset.classes import BACK_ID, CLASS_NAMES, NAMES_ZH
from tileset.labelfiles import (
    IMAGE_SUFFIXES,
    LabelBox,
    LabelFileError,
    Photo,
    PhotoLabels,
    StaleLabels,
    images_dir,
    label_changes,
    list_photos,
    review_order,
)

PREFIX = "label."
FOLDER_KEY = PREFIX + "folder"
ORDER_KEY = PREFIX + "order"  # (folder, [image paths]) fixed when the folder is opened
INDEX_KEY = PREFIX + "index"
BOX_KEY = PREFIX + "box"  # the box list widget; what is picked lives in PICKED_KEY
PICKED_KEY = PREFIX + "picked"  # box numbers picked (as on the photo), by the list or by clicks on the photo
PICKED_AS_KEY = PREFIX + "picked_as"  # {box number: the box as it was when picked}: a changed box is unpicked
SEEN_KEY = PREFIX + "seen"  # (photo path, its labels as the page last showed them): what an edit was made from
CLASS_KEY = PREFIX + "class"
ADD_KEYS = tuple(PREFIX + k for k in ("x1", "y1", "x2", "y2"))
ADD_CLASS_KEY = PREFIX + "add_class"
ROW_KEY = PREFIX + "row"  # faces of the picked boxes, left to right ("f1 f2 s3", "梅兰菊", "east south")
BELOW_KEY = PREFIX + "below"  # "delete every box less sure than this"
UPLOAD_KEY = PREFIX + "upload"
ADAPT_COMMAND_KEY = PREFIX + "adapt_command"  # tests replace `python -m vision.adapt` with a stand-in
CANVAS_KEY = PREFIX + "canvas"  # the photo: a click picks a box, a drag draws one (streamlit-image-coordinates)
MESSAGE_KEY = PREFIX + "message"
MODELS_ROOT_KEY = PREFIX + "models_root"  # tests point the model panel at a temporary folder
DISPLAY_MAX_WIDTH = 1280
DEFAULT_BELOW = 0.3
CHANGES_SHOWN = 6  # a refused edit names at most this many of the changes it found
TEACH_WATCHING = PREFIX + "teach_watching"  # the teaching run this session started or joined
LEARN_JOB, TEACH_KIND = "learn", "adapt"  # one learning at a time (appui.jobs), shared with "Learn this set"


def stale_message(error: StaleLabels, seen: PhotoLabels | None, language: str | None = None) -> str:
    """Why an edit was refused, naming what changed since the page showed the labels (by box number)."""
    import time

    changes = label_changes(seen, error.current) if seen is not None else ()
    words = []
    for change in changes[:CHANGES_SHOWN]:
        if change.kind in ("reviewed", "unreviewed"):
            words.append(t("lbl_ch_" + change.kind, language))
        else:
            words.append(t("lbl_ch_" + change.kind, language, n=change.number, before=change.face_before,
                           after=change.face_after, face=change.face_before or change.face_after))
    if len(changes) > CHANGES_SHOWN:
        words.append(t("lbl_ch_more", language, n=len(changes) - CHANGES_SHOWN))
    when = "" if error.changed_at is None else t(
        "lbl_stale_when", language, time=time.strftime("%H:%M:%S", time.localtime(error.changed_at)))
    return t("lbl_stale", language, name=error.photo.image.name, when=when,
             changes="; ".join(words) or t("lbl_ch_rewritten", language))


def _photos(folder: Path) -> list[Photo]:
    """The folder's photos in review order, fixed while the folder stays open (edits do not reshuffle)."""
    order = st.session_state.get(ORDER_KEY)
    if order is None or order[0] != str(folder):
        photos = review_order(list_photos(folder))
        st.session_state[ORDER_KEY] = (str(folder), [str(p.image) for p in photos])
        st.session_state[INDEX_KEY] = 0
        return photos
    labels_dir = folder / "labels"
    return [Photo(Path(p), labels_dir) for p in order[1]]


def _current(photos: list[Photo]) -> Photo:
    index = min(max(int(st.session_state.get(INDEX_KEY, 0)), 0), len(photos) - 1)
    st.session_state[INDEX_KEY] = index
    return photos[index]


def _say(kind: str, text: str) -> None:
    st.session_state[MESSAGE_KEY] = (kind, text)


def _seen(photo: Photo) -> PhotoLabels | None:
    """The photo's labels as the page last showed them (None when it showed none of this photo)."""
    seen = st.session_state.get(SEEN_KEY)
    return seen[1] if isinstance(seen, tuple) and seen[0] == str(photo.image) else None


def _seen_revision(photo: Photo) -> str | None:
    seen = _seen(photo)
    return seen.revision if seen is not None else None


def _refused(photo: Photo, error: StaleLabels) -> None:
    """A stale edit: say what changed; the picks go (the next run shows the labels as they are now)."""
    _say("error", stale_message(error, _seen(photo)))
    _pick([])


def _change(photo: Photo, change: Callable[[PhotoLabels], PhotoLabels], message: str | Callable[[], str]) -> None:
    """Load, change and save the photo's labels in one turn of its lock, if they are still what the page
    showed; the outcome as a message.  The picks are cleared after a change (the fixed boxes stay
    highlighted nowhere)."""
    try:
        photo.update(change, _seen_revision(photo))
    except StaleLabels as error:
        _refused(photo, error)
        return
    except (LabelFileError, OSError, IndexError) as error:
        _say("error", t("lbl_not_saved", msg=error))
        return
    _say("success", t("lbl_saved", what=message if isinstance(message, str) else message(),
                      file=photo.label_path.name))
    _pick([])  # done with these boxes: the next click starts a new pick


def _picked() -> list[int]:
    value = st.session_state.get(PICKED_KEY)
    return [v for v in value if isinstance(v, int)] if isinstance(value, list) else []


def _pick(numbers: list[int]) -> None:
    """What is picked now, each box as the page showed it (kept from when it was first picked)."""
    seen = st.session_state.get(SEEN_KEY)
    shown = dict(zip(seen[1].ids(), seen[1].boxes, strict=False)) if isinstance(seen, tuple) else {}
    before = st.session_state.get(PICKED_AS_KEY) or {}
    st.session_state[PICKED_KEY] = numbers
    st.session_state[PICKED_AS_KEY] = {n: before.get(n, shown.get(n)) for n in numbers}


def _keep_picks_of(labels: PhotoLabels) -> None:
    """Unpick (and say so) the boxes that are gone, or not as they were when picked: another tab or program
    changed them, and a pick by number alone could then change a box the person never chose."""
    boxes = dict(zip(labels.ids(), labels.boxes, strict=False))
    picked_as = st.session_state.get(PICKED_AS_KEY) or {}
    picked = _picked()
    kept = [n for n in picked if n in boxes and picked_as.get(n) in (None, boxes[n])]
    if gone := [n for n in picked if n not in kept]:
        st.info(t("lbl_unpicked", boxes=", ".join(map(str, gone))))
    if gone or not picked_as.keys() >= set(picked):
        _pick(kept)


def _on_pick_list() -> None:
    """The box list changed: it is what is picked now."""
    value = st.session_state.get(BOX_KEY)
    _pick([v for v in value if isinstance(v, int)] if isinstance(value, list) else [])


def _picked_or_say() -> list[int]:
    picked = _picked()
    if not picked:
        _say("warning", t("lbl_pick_first"))
    return picked


def _numbers_text(picked: list[int]) -> str:
    return ", ".join(str(n) for n in sorted(picked))


def _on_set_class(photo: Photo) -> None:
    class_id = st.session_state.get(CLASS_KEY)
    if not (picked := _picked_or_say()):
        return
    if class_id is None:
        _say("warning", t("lbl_pick_face"))
        return
    _change(photo, lambda labels: labels.with_classes(labels.indices_of(picked), class_id),
            t("lbl_now", boxes=_numbers_text(picked), face=CLASS_NAMES[class_id]))


def _on_mark_back(photo: Photo) -> None:
    if not (picked := _picked_or_say()):
        return
    _change(photo, lambda labels: labels.with_classes(labels.indices_of(picked), BACK_ID),
            t("lbl_now", boxes=_numbers_text(picked), face=CLASS_NAMES[BACK_ID]))


def _on_delete(photo: Photo) -> None:
    if not (picked := _picked_or_say()):
        return
    _change(photo, lambda labels: labels.without_all(labels.indices_of(picked)),
            t("lbl_deleted", boxes=_numbers_text(picked)))


def _on_delete_below(photo: Photo) -> None:
    threshold = float(st.session_state.get(BELOW_KEY) or 0)
    deleted: list[int] = []

    def change(labels: PhotoLabels) -> PhotoLabels:
        deleted[:] = labels.below(threshold)
        return labels.without_all(deleted)

    _change(photo, change, lambda: t("lbl_deleted_below", n=len(deleted), conf=threshold))


def _on_set_row(photo: Photo) -> None:
    if not (picked := _picked_or_say()):
        return
    try:
        faces = parse_faces(str(st.session_state.get(ROW_KEY) or ""))
    except LabelFileError as error:
        _say("error", message_text(str(error)))
        return
    if len(faces) != len(picked):
        _say("warning", t("lbl_row_count", faces=len(faces), boxes=len(picked)))
        return

    def change(labels: PhotoLabels) -> PhotoLabels:
        left_to_right = sorted(labels.indices_of(picked), key=lambda i: labels.boxes[i].cx)
        for index, class_id in zip(left_to_right, faces, strict=False):
            labels = labels.with_classes((index,), class_id)
        return labels

    _change(photo, change, t("lbl_now", boxes=_numbers_text(picked),
                             face=" ".join(CLASS_NAMES[f] for f in faces)))


def _on_add(photo: Photo, width: int, height: int) -> None:
    corners = [float(st.session_state.get(key) or 0) for key in ADD_KEYS]
    class_id = st.session_state.get(ADD_CLASS_KEY)
    if class_id is None:
        _say("warning", t("lbl_pick_face"))
        return
    x1, y1, x2, y2 = max(corners[0], 0), max(corners[1], 0), min(corners[2], width), min(corners[3], height)
    try:
        box = LabelBox.from_xyxy(class_id, (x1, y1, x2, y2), width, height)
    except LabelFileError as error:
        _say("error", t("lbl_not_added", msg=error))
        return
    _change(photo, lambda labels: labels.with_added(box), t("lbl_added", face=CLASS_NAMES[class_id]))


def _on_undo(photo: Photo) -> None:
    try:
        photo.undo(_seen_revision(photo))
    except StaleLabels as error:
        _refused(photo, error)
        return
    except (LabelFileError, OSError) as error:
        _say("warning", message_text(str(error)))
        return
    _say("success", t("lbl_undone", file=photo.label_path.name))
    _pick([])


def _on_canvas(photo: Photo, width: int, height: int) -> None:
    """A click on the photo picks (or unpicks) the box under it.  A drag redraws the one picked box, or
    draws a new box of the chosen face, or (no face chosen) picks the boxes inside it.  The click is read
    on the labels the page showed, the photo the person clicked on."""
    labels = _seen(photo)
    if labels is None:
        return
    action = canvas_action(labels, st.session_state.get(CANVAS_KEY), width, height)
    if action is None:
        return
    numbers = labels.ids()
    if action[0] == "pick":
        what = numbers[action[1]]
        picked = _picked()
        _pick([n for n in picked if n != what] if what in picked else [*picked, what])
        return
    corners = action[1]
    picked = _picked()
    if len(picked) == 1:  # one box picked: the drag is its right outline
        number = picked[0]

        def redrawn(current: PhotoLabels) -> PhotoLabels:
            (index,) = current.indices_of([number])
            return current.with_box(index, LabelBox.from_xyxy(current.boxes[index].class_id, corners, width, height))

        _change(photo, redrawn, t("lbl_redrawn", boxes=number))
        return
    class_id = st.session_state.get(CLASS_KEY)
    if class_id is None:  # no face to draw with: the drag is a lasso, picking the boxes inside it
        inside = [numbers[i] for i in boxes_inside(labels, corners, width, height)]
        _pick(sorted(set(_picked()) | set(inside)))
        _say("info", t("lbl_lassoed", n=len(inside)))
        return
    box = LabelBox.from_xyxy(class_id, corners, width, height)
    _change(photo, lambda current: current.with_added(box), t("lbl_added", face=CLASS_NAMES[class_id]))


def _show_photo(photo: Photo, drawn_bgr: np.ndarray, width: int, height: int) -> None:
    """The photo with its boxes, sent at most DISPLAY_MAX_WIDTH wide; clickable where the component is installed."""
    shown = drawn_bgr
    if width > DISPLAY_MAX_WIDTH:
        shown = cv2.resize(drawn_bgr, (DISPLAY_MAX_WIDTH, round(height * DISPLAY_MAX_WIDTH / width)),
                           interpolation=cv2.INTER_AREA)
    rgb = cv2.cvtColor(shown, cv2.COLOR_BGR2RGB)
    try:
        from streamlit_image_coordinates import streamlit_image_coordinates
    except ImportError:
        st.image(rgb, width=min(width, DISPLAY_MAX_WIDTH))
        return
    st.caption(t("lbl_canvas_hint"))
    streamlit_image_coordinates(rgb, key=CANVAS_KEY, use_column_width="always", click_and_drag=True,
                                image_format="JPEG", jpeg_quality=85, cursor="crosshair",
                                on_click=lambda: _on_canvas(photo, width, height))


def _forget_picks() -> None:
    """A new photo starts with nothing picked: no box, no face (the last face must not carry over)."""
    _pick([])
    st.session_state[CLASS_KEY] = None
    st.session_state[ROW_KEY] = ""


def _on_reviewed(photo: Photo, count: int) -> None:
    try:
        photo.update(lambda labels: labels.marked_reviewed(), _seen_revision(photo))
    except StaleLabels as error:
        _refused(photo, error)
        return
    except (LabelFileError, OSError) as error:
        _say("error", t("lbl_not_saved", msg=error))
        return
    _say("success", t("lbl_reviewed", name=photo.image.name))
    st.session_state[INDEX_KEY] = min(int(st.session_state.get(INDEX_KEY, 0)) + 1, count - 1)
    _forget_picks()


def _on_step(step: int, count: int) -> None:
    st.session_state[INDEX_KEY] = min(max(int(st.session_state.get(INDEX_KEY, 0)) + step, 0), count - 1)
    _forget_picks()


def _show_message() -> None:
    message = st.session_state.pop(MESSAGE_KEY, None)
    if message:
        getattr(st, message[0])(message[1])


def _box_editor(photo: Photo, labels: PhotoLabels) -> None:
    confidences = labels.confidences()
    index_of = {number: index for index, number in box_numbers(labels).items()}
    options = sorted(index_of)
    picked = [n for n in _picked() if n in index_of]
    # Set from the picks on every run: the widget keeps no stale entry when a box's face (its label) changes.
    st.session_state[BOX_KEY] = picked
    st.multiselect(t("lbl_boxes"), options, key=BOX_KEY, placeholder=t("lbl_boxes_hint"), on_change=_on_pick_list,
                   format_func=lambda n: f"{n}: {labels.boxes[index_of[n]].class_name} "
                                         f"{NAMES_ZH[labels.boxes[index_of[n]].class_name]} "
                                         f"({confidences[index_of[n]]:.2f})")
    st.selectbox(t("lbl_face"), list(range(len(CLASS_NAMES))), key=CLASS_KEY, index=None,
                 format_func=class_label, placeholder=t("lbl_face_hint"))
    face, back, delete = st.columns(3)
    with face:
        st.button(t("lbl_set_face"), on_click=_on_set_class, args=(photo,), key=PREFIX + "set",
                  width="stretch", shortcut="F")
    with back:
        st.button(t("lbl_back"), on_click=_on_mark_back, args=(photo,), key=PREFIX + "back", width="stretch",
                  shortcut="B")
    with delete:
        st.button(t("lbl_delete"), on_click=_on_delete, args=(photo,), key=PREFIX + "delete", width="stretch",
                  shortcut="Delete")
    row, row_button = st.columns([3, 2], vertical_alignment="bottom")
    with row:
        st.text_input(t("lbl_row"), key=ROW_KEY, placeholder="f1 f2 s3 / 梅兰菊 / spring summer")
    with row_button:
        st.button(t("lbl_set_row"), on_click=_on_set_row, args=(photo,), key=PREFIX + "setrow",
                  width="stretch")
    low, low_button = st.columns([2, 3], vertical_alignment="bottom")
    with low:
        st.number_input(t("lbl_below"), min_value=0.0, max_value=1.0, step=0.05, value=DEFAULT_BELOW, key=BELOW_KEY)
    with low_button:
        below = len(labels.below(float(st.session_state.get(BELOW_KEY) or 0)))
        st.button(t("lbl_delete_below", n=below), on_click=_on_delete_below, args=(photo,), key=PREFIX + "delbelow",
                  disabled=not below, width="stretch")
    st.button(t("lbl_undo"), on_click=_on_undo, args=(photo,), key=PREFIX + "undo", shortcut="Mod+Z")


def _box_adder(photo: Photo, width: int, height: int) -> None:
    with st.expander(t("lbl_add_title")), st.form(PREFIX + "add_form", border=False):  # typing a corner does not rerun the page
        columns = st.columns(4)
        for column, key, label, limit in zip(columns, ADD_KEYS, ("x1", "y1", "x2", "y2"), (width, height) * 2, strict=False):
            with column:
                st.number_input(label, min_value=0, max_value=int(limit), step=1, key=key)
        st.selectbox(t("lbl_face"), list(range(len(CLASS_NAMES))), key=ADD_CLASS_KEY, index=None,
                     format_func=class_label, placeholder=t("lbl_face_hint"))
        st.form_submit_button(t("lbl_add"), on_click=_on_add, args=(photo, width, height), key=PREFIX + "add")


def add_photos(folder: Path, files: list[tuple[str, bytes]]) -> list[str]:
    """Write uploaded photos into the folder's photo place (`images/` for a new folder); returns their names.

    A name already taken by another photo (same name, any extension) gets `-2`, `-3`, ...: two photos
    must never share a label file.
    """
    target = images_dir(folder) if folder.is_dir() else folder / "images"
    taken = {p.stem for p in target.iterdir()} if target.is_dir() else set()
    written = []
    for original, data in files:
        name = Path(original).name
        stem, suffix = Path(name).stem or "photo", Path(name).suffix.lower()
        if suffix not in IMAGE_SUFFIXES:
            raise LabelFileError(f"{name}: not a photo ({', '.join(IMAGE_SUFFIXES)})")
        stem = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in stem)
        unique, number = stem, 1
        while unique in taken:
            number += 1
            unique = f"{stem}-{number}"
        taken.add(unique)
        atomic_write_bytes(target / f"{unique}{suffix}", data)
        written.append(f"{unique}{suffix}")
    return written


def _models_root() -> Path:
    from vision.settings import MODELS_DIR

    return Path(st.session_state.get(MODELS_ROOT_KEY) or MODELS_DIR)


def _models_dir() -> Path:
    from vision.registry import Registry

    return Registry(_models_root()).active_dir()


def _folder_tools(folder: Path) -> None:
    """Add photos to the folder and pre-label them with the model in use, with a progress bar."""
    with st.expander(t("lbl_tools")):
        files = st.file_uploader(t("lbl_upload"), type=[s.lstrip(".") for s in IMAGE_SUFFIXES],
                                 accept_multiple_files=True, key=UPLOAD_KEY)
        if files and st.button(t("lbl_add_photos", n=len(files)), key=PREFIX + "add_photos"):
            try:
                written = add_photos(folder, [(f.name, f.getvalue()) for f in files])
            except (LabelFileError, OSError) as error:
                st.error(message_text(str(error)))
            else:
                st.session_state.pop(ORDER_KEY, None)  # the order is made again with the new photos
                st.success(t("lbl_added_photos", n=len(written)))
        if st.button(t("lbl_prelabel"), key=PREFIX + "prelabel"):
            _prelabel(folder)


def _prelabel(folder: Path) -> None:
    import re

    from datasets.label import load_detector, prelabel_folder

    bar = st.progress(0.0, text=t("lbl_prelabel_loading"))
    try:
        detector, model = load_detector(_models_dir())
        seen = re.compile(r"^\[(\d+)/(\d+)\]")

        def progress(line: str) -> None:
            if match := seen.match(line):
                bar.progress(int(match[1]) / int(match[2]), text=line)

        report = prelabel_folder(folder, detector, model, progress=progress)
    except Exception as error:
        bar.empty()
        st.error(t("lbl_prelabel_failed", msg=f"{type(error).__name__}: {error}"))
        return
    bar.progress(1.0, text=t("lbl_prelabel_done", n=report.labeled, kept=report.skipped_reviewed, boxes=report.boxes))
    for failure in report.failed:
        st.warning(failure)
    st.session_state.pop(ORDER_KEY, None)  # least sure first again, with the new labels


TEACH_MINUTES = 15  # the page's fine-tune ends within this (`python -m vision.adapt --minutes`)


def adapt_command(folder: Path, models_root: Path) -> list[str]:
    """The command line's adapt, with its base-photo check, in a time budget."""
    import sys

    return [sys.executable, "-m", "vision.adapt", str(folder), "--models", str(models_root),
            "--minutes", str(TEACH_MINUTES)]


def _teach(folder: Path, reviewed: int) -> None:
    """"Teach the model": `python -m vision.adapt` on the `reviewed` photos, its progress (`_teaching_panel`, which
    leaves the photo and editor below it) and its verdict. It runs once (`appui.jobs`, shared with "Learn this
    set"): a second click, or a second tab, while it runs is told so and watches that run."""
    import importlib.util

    from .access import confirm_again
    from .dataroot import data_root

    command = st.session_state.get(ADAPT_COMMAND_KEY)
    missing = None if command or importlib.util.find_spec("torch") else t("lbl_teach_no_torch")
    if not confirm_again(PREFIX + "teach_code"):  # LAN mode: adapting may change the model in use for everyone
        return
    state = jobs.status(data_root(), LEARN_JOB)
    if state is not None and state.running and state.token != st.session_state.get(TEACH_WATCHING):
        st.info(t("lbl_teach_running" if state.kind == TEACH_KIND else "lbl_learn_running", since=_since(state)))
    running = state is not None and state.running and state.kind == TEACH_KIND
    st.button(t("lbl_teach", n=reviewed), key=PREFIX + "teach",
              disabled=bool(missing) or not reviewed or (state is not None and state.running),
              help=missing or t("lbl_teach_help"))
    if missing:
        st.caption(missing)
    if st.session_state.get(PREFIX + "teach"):
        argv = list(command) if command else adapt_command(folder, _models_root())
        try:
            state = jobs.start(data_root(), LEARN_JOB, TEACH_KIND, argv)
        except jobs.AlreadyRunning as already:
            if already.state.kind != TEACH_KIND:
                st.warning(t("lbl_learn_running", since=_since(already.state)))
                return
            st.warning(t("lbl_teach_running", since=_since(already.state)))
            state = already.state
        except jobs.JobError as error:
            st.error(t("lbl_teach_failed", code=str(error)))
            return
        st.session_state[TEACH_WATCHING] = state.token
        running = True
    if running or TEACH_WATCHING in st.session_state:
        _teaching_panel()


def _since(state: jobs.JobState) -> str:
    import time

    return time.strftime("%H:%M:%S", time.localtime(state.started))


TEACH_REFRESH_S = 1.0  # how often the teaching panel reads the run's log
TEACH_LOG_LINES = 40  # the log's last lines in the panel's folded "log" part
ADAPT_STEP = re.compile(r"^\[adapt (\d)/(\d)\]\s*(.*)")


def teach_progress(lines: list[str], elapsed_s: float, minutes: float = TEACH_MINUTES) -> tuple[float, int, str, float]:
    """How far a teaching run is, from its log: (share done, its step 1..5 (0 before the first), that step's line,
    the most seconds left). The run ends within `minutes` (`--minutes`): the share is the larger of the steps
    done and the time spent; the time left is what remains of the budget."""
    step, total, text = 0, 5, ""
    for line in lines:
        if found := ADAPT_STEP.match(line.strip()):
            step, total, text = int(found[1]), int(found[2]), found[3]
    budget = 60.0 * minutes
    share = max((step - 1) / total if step else 0.0, min(elapsed_s / budget, 1.0))
    return min(share, 0.99), step, text, max(0.0, budget - elapsed_s)


def failure_reason(lines: list[str]) -> str | None:
    """Why a run stopped, in its own words: its last `error: ...` line, else the last line of a traceback
    (`SomeError: what`); None when the log says neither."""
    for line in reversed(lines):
        if line.startswith("error: "):
            return line[len("error: "):].strip()
    for line in reversed(lines):
        if found := re.match(r"^[A-Za-z_.]*(Error|Exception|Interrupt)\b:?\s*(.*)$", line.strip()):
            return found[0]
    return None


def teach_verdict(state: jobs.JobState) -> tuple[str, str]:
    """The message a teaching run ends with: (kind of box, text). Kept: success; not kept: a warning with the
    reason; stopped: an error with the reason from its log."""
    result = state.result()
    if state.exit_code not in (0, None) or result is None:
        why = failure_reason(state.log_lines())
        if why:
            return "error", t("lbl_teach_failed_why", reason=why, code=state.exit_code)
        return "error", t("lbl_teach_failed", code=state.exit_code)
    old, new = result.get("old", {}), result.get("new", {})
    figures = {"version": result.get("version"), "old": f"{100 * float(old.get('read_accuracy', 0)):.1f}",
               "new": f"{100 * float(new.get('read_accuracy', 0)):.1f}",
               "reason": result.get("reason") or t("lbl_not_better")}
    if result.get("promoted"):
        return "success", t("lbl_taught_promoted", **figures)
    return "warning", t("lbl_taught_kept", **figures)


@st.fragment(run_every=TEACH_REFRESH_S)
def _teaching_panel() -> None:
    """The teaching run, read again every TEACH_REFRESH_S without the rest of the page: one bar with its step
    and the time left at most, its log folded away; once it ends, its verdict at the top of the page (for the
    sessions that watched it)."""
    import time

    from .dataroot import data_root

    state = jobs.status(data_root(), LEARN_JOB)
    if state is None or state.kind != TEACH_KIND:
        st.session_state.pop(TEACH_WATCHING, None)
        return
    if state.running:
        st.session_state[TEACH_WATCHING] = state.token  # this session says how it ended
        lines = [line for line in state.log_lines() if line.strip()]
        share, step, text, left = teach_progress(lines, time.time() - state.started)
        st.progress(share, text=t("lbl_teach_step", step=step or 1, text=text[:100] or t("lbl_teaching"),
                                  minutes=max(1, round(left / 60))))
        with st.expander(t("lbl_teach_log", n=len(lines))):
            st.code("\n".join(lines[-TEACH_LOG_LINES:]) or "...", language=None)
        return
    if state.token == st.session_state.pop(TEACH_WATCHING, None):
        _say(*teach_verdict(state))
        st.rerun()  # the verdict at the top of the page, and the button back


def render() -> None:
    st.header(t("page_label"))
    st.caption(t("lbl_intro"))
    folder_text = data_folder_input(t("lbl_folder"), FOLDER_KEY)
    model_versions(_models_root(), PREFIX)
    _show_message()
    if not folder_text:
        return
    from .dataroot import OutsideDataRoot, data_root, resolve_inside

    try:  # only folders inside the data root (appui.dataroot): the page writes labels/ there
        folder = resolve_inside(data_root(), folder_text)
    except OutsideDataRoot as error:
        st.error(t("outside_root", msg=str(error)))
        return
    _folder_tools(folder)
    try:
        photos = _photos(folder)
    except (LabelFileError, OSError) as error:
        st.error(message_text(str(error)))
        return
    photo = _current(photos)
    index = int(st.session_state[INDEX_KEY])
    readings = _read_all(photos)
    st.subheader(f"{index + 1} / {len(photos)}: {photo.image.name}")
    # Navigation first: a photo whose files cannot be read must not block the rest of the folder.
    nav = st.columns(3)
    with nav[0]:
        st.button(t("lbl_previous"), on_click=_on_step, args=(-1, len(photos)), key=PREFIX + "prev", shortcut="P")
    with nav[1]:
        st.button(t("lbl_looks_right"), on_click=_on_reviewed, args=(photo, len(photos)),
                  key=PREFIX + "reviewed", type="primary", shortcut="L")
    with nav[2]:
        st.button(t("lbl_next"), on_click=_on_step, args=(1, len(photos)), key=PREFIX + "next", shortcut="N")
    _all_done(readings)
    _teach(folder, sum(_reviewed(r) for r in readings))
    reading = readings[index]
    if isinstance(reading, LabelFileError):
        st.error(t("lbl_unreadable", name=photo.image.name, msg=reading))
        return
    labels, problems = reading
    st.session_state[SEEN_KEY] = (str(photo.image), labels)  # what this page's edits are made from
    _keep_picks_of(labels)
    for problem in problems:
        st.warning(problem)
    from vision.images import ImageError, load_image

    try:
        image = load_image(photo.image)  # EXIF-oriented, as the labels are
    except (ImageError, OSError) as error:
        st.error(f"{photo.image.name}: {error}")
        return
    height, width = image.shape[:2]
    state = t("lbl_state_reviewed") if labels.meta.reviewed else t("lbl_state_open")
    st.write(t("lbl_status", n=len(labels.boxes), state=state, conf=f"{labels.least_confidence:.2f}"))

    photo_column, tools_column = st.columns([3, 2])  # side by side on a laptop, one above the other on a phone
    with photo_column:
        _show_photo(photo, draw_boxes(image, labels, _picked()), width, height)
    with tools_column:
        _box_editor(photo, labels)
        _box_adder(photo, width, height)


Reading = tuple[PhotoLabels, tuple[str, ...]] | LabelFileError  # Photo.load_checked's answer, or why it failed


def _read_all(photos: list[Photo]) -> list[Reading]:
    """Every photo's labels, each file read once a run: the photo shown, the reviewed count, 'all done'."""
    readings: list[Reading] = []
    for photo in photos:
        try:
            readings.append(photo.load_checked())
        except LabelFileError as error:
            readings.append(error)
    return readings


def _reviewed(reading: Reading) -> bool:
    return not isinstance(reading, LabelFileError) and reading[0].meta.reviewed


def _all_done(readings: list[Reading]) -> None:
    """Say so when every photo of the folder has been checked."""
    if all(_reviewed(r) for r in readings):
        st.success(t("lbl_all_done", n=len(readings)))
