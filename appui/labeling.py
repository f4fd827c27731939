"""Label photos: walk a folder least-sure first, fix faces, delete/add boxes, mark backs; saves as it goes.

Every change is written at once (atomically, the previous label file kept in `labels/.history/`),
so closing the browser never loses more than the click in flight.  The "Model in use" panel
lists the model versions and switches between them (`vision.registry`).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import streamlit as st

from tileset.classes import BACK_ID, CLASS_NAMES, NAMES_ZH
from tileset.labelfiles import (
    LabelBox,
    LabelFileError,
    Photo,
    PhotoLabels,
    list_photos,
    review_order,
)

PREFIX = "label."
FOLDER_KEY = PREFIX + "folder"
ORDER_KEY = PREFIX + "order"  # (folder, [image paths]) fixed when the folder is opened
INDEX_KEY = PREFIX + "index"
BOX_KEY = PREFIX + "box"
CLASS_KEY = PREFIX + "class"
ADD_KEYS = tuple(PREFIX + k for k in ("x1", "y1", "x2", "y2"))
ADD_CLASS_KEY = PREFIX + "add_class"
MESSAGE_KEY = PREFIX + "message"
VERSION_KEY = PREFIX + "version"
MODELS_ROOT_KEY = PREFIX + "models_root"  # tests point the model panel at a temporary folder
DISPLAY_MAX_WIDTH = 1280
LOW_CONFIDENCE = 0.5  # boxes below this are drawn in red: look at them first

SURE_COLOUR = (60, 180, 75)  # BGR
UNSURE_COLOUR = (40, 40, 230)
SELECTED_COLOUR = (0, 200, 255)


def class_label(class_id: int) -> str:
    name = CLASS_NAMES[class_id]
    return f"{name} {NAMES_ZH[name]}"


def draw_boxes(image_bgr: np.ndarray, labels: PhotoLabels, selected: int | None) -> np.ndarray:
    """The photo with every box numbered and named; unsure boxes red, the selected one highlighted."""
    canvas = image_bgr.copy()
    height, width = canvas.shape[:2]
    thickness = max(1, round(max(width, height) / 600))
    for index, (box, conf) in enumerate(zip(labels.boxes, labels.confidences())):
        x1, y1, x2, y2 = (round(v) for v in box.xyxy(width, height))
        colour = SELECTED_COLOUR if index == selected else UNSURE_COLOUR if conf < LOW_CONFIDENCE else SURE_COLOUR
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour, thickness * (2 if index == selected else 1))
        cv2.putText(canvas, f"{index} {box.class_name}", (x1, max(y1 - 4, 12)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.4 * thickness, colour, thickness, cv2.LINE_AA)
    return canvas


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


def _save(photo: Photo, labels: PhotoLabels, message: str) -> None:
    try:
        photo.save(labels)
    except (LabelFileError, OSError) as error:
        st.session_state[MESSAGE_KEY] = ("error", f"not saved: {error}")
        return
    st.session_state[MESSAGE_KEY] = ("success", f"{message} — saved {photo.label_path.name}")


def _selected_box(photo: Photo) -> tuple[PhotoLabels, int] | None:
    """The photo's labels and the index of the box picked on the page, or None when no box is picked."""
    labels = photo.load()
    index = st.session_state.get(BOX_KEY)
    if index is None or index >= len(labels.boxes):
        return None
    return labels, index


def _on_set_class(photo: Photo) -> None:
    selected, class_id = _selected_box(photo), st.session_state.get(CLASS_KEY)
    if selected is None or class_id is None:
        return
    labels, index = selected
    _save(photo, labels.with_class(index, class_id), f"box {index} is now {CLASS_NAMES[class_id]}")


def _on_mark_back(photo: Photo) -> None:
    if (selected := _selected_box(photo)) is None:
        return
    labels, index = selected
    _save(photo, labels.with_class(index, BACK_ID), f"box {index} is now a tile back")


def _on_delete(photo: Photo) -> None:
    if (selected := _selected_box(photo)) is None:
        return
    labels, index = selected
    _save(photo, labels.without(index), f"box {index} deleted")
    st.session_state[BOX_KEY] = None


def _on_add(photo: Photo, width: int, height: int) -> None:
    corners = [float(st.session_state.get(key) or 0) for key in ADD_KEYS]
    class_id = st.session_state.get(ADD_CLASS_KEY)
    if class_id is None:
        return
    x1, y1, x2, y2 = max(corners[0], 0), max(corners[1], 0), min(corners[2], width), min(corners[3], height)
    try:
        box = LabelBox.from_xyxy(class_id, (x1, y1, x2, y2), width, height)
    except LabelFileError as error:
        st.session_state[MESSAGE_KEY] = ("error", f"box not added: {error}")
        return
    _save(photo, photo.load().with_added(box), f"added a {CLASS_NAMES[class_id]} box")


def _on_reviewed(photo: Photo, count: int) -> None:
    _save(photo, photo.load().marked_reviewed(), f"{photo.image.name} marked reviewed")
    st.session_state[INDEX_KEY] = min(int(st.session_state.get(INDEX_KEY, 0)) + 1, count - 1)
    st.session_state[BOX_KEY] = None


def _on_step(step: int, count: int) -> None:
    st.session_state[INDEX_KEY] = min(max(int(st.session_state.get(INDEX_KEY, 0)) + step, 0), count - 1)
    st.session_state[BOX_KEY] = None


def _show_message() -> None:
    message = st.session_state.pop(MESSAGE_KEY, None)
    if message:
        getattr(st, message[0])(message[1])


def _box_editor(photo: Photo, labels: PhotoLabels) -> None:
    confidences = labels.confidences()
    options = list(range(len(labels.boxes)))
    st.selectbox("Box", options, key=BOX_KEY, index=None, placeholder="pick a box by its number",
                 format_func=lambda i: f"{i}: {class_label(labels.boxes[i].class_id)} ({confidences[i]:.2f})")
    left, mid, right = st.columns(3)
    with left:
        st.selectbox("Correct face", list(range(len(CLASS_NAMES))), key=CLASS_KEY, index=None,
                     format_func=class_label, placeholder="pick the right face")
        st.button("Set face", on_click=_on_set_class, args=(photo,), key=PREFIX + "set")
    with mid:
        st.button("Mark as tile back", on_click=_on_mark_back, args=(photo,), key=PREFIX + "back")
    with right:
        st.button("Delete box", on_click=_on_delete, args=(photo,), key=PREFIX + "delete")


def _box_adder(photo: Photo, width: int, height: int) -> None:
    with st.expander("Add a box (pixel corners)"):
        columns = st.columns(4)
        for column, key, label, limit in zip(columns, ADD_KEYS, ("x1", "y1", "x2", "y2"), (width, height) * 2):
            with column:
                st.number_input(label, min_value=0, max_value=int(limit), step=1, key=key)
        st.selectbox("Face", list(range(len(CLASS_NAMES))), key=ADD_CLASS_KEY, index=None,
                     format_func=class_label, placeholder="face of the new box")
        st.button("Add box", on_click=_on_add, args=(photo, width, height), key=PREFIX + "add")


def _on_use_version(root: Path) -> None:
    from vision.registry import Registry, RegistryError

    try:
        version = Registry(root).activate(st.session_state[VERSION_KEY])
    except (RegistryError, KeyError) as error:
        st.session_state[MESSAGE_KEY] = ("error", str(error))
        return
    st.session_state[MESSAGE_KEY] = ("success", f"now using {version.name}")


def _on_back(root: Path) -> None:
    from vision.registry import Registry, RegistryError

    try:
        version = Registry(root).back()
    except RegistryError as error:
        st.session_state[MESSAGE_KEY] = ("error", str(error))
        return
    st.session_state[MESSAGE_KEY] = ("success", f"back to {version.name}")


def render_model_versions(models_root: Path | None = None) -> None:
    """Which model version reads photos, the others, and a switch (also used by other pages)."""
    from vision.registry import Registry
    from vision.settings import MODELS_DIR

    root = Path(models_root or st.session_state.get(MODELS_ROOT_KEY) or MODELS_DIR)
    registry = Registry(root)
    versions = registry.versions()
    active = registry.active_name()
    with st.expander(f"Model in use: {active}"):
        for version in versions:
            st.markdown(("**▶ " if version.name == active else "- ") + version.summary + ("**" if version.name == active else ""))
        names = [v.name for v in versions]
        st.selectbox("Version", names, index=names.index(active), key=VERSION_KEY)
        left, right = st.columns(2)
        with left:
            st.button("Use this version", on_click=_on_use_version, args=(root,), key=PREFIX + "use")
        with right:
            st.button("Go back to the previous version", on_click=_on_back, args=(root,), key=PREFIX + "goback")


def render() -> None:
    st.header("Label photos")
    st.caption("Pre-label a folder first: `python -m datasets.label prelabel FOLDER`. "
               "Photos come least sure first; every change is saved at once.")
    folder_text = st.text_input("Photo folder", key=FOLDER_KEY, placeholder="/path/to/photos")
    render_model_versions()
    _show_message()
    if not folder_text:
        return
    folder = Path(folder_text).expanduser()
    try:
        photos = _photos(folder)
    except LabelFileError as error:
        st.error(str(error))
        return
    photo = _current(photos)
    try:
        labels = photo.load()
    except LabelFileError as error:
        st.error(f"{photo.image.name}: {error}")
        return
    from vision.detector import ImageError, load_image

    try:
        image = load_image(photo.image)  # EXIF-oriented, as the labels are
    except ImageError as error:
        st.error(f"{photo.image.name}: {error}")
        return
    height, width = image.shape[:2]
    index = int(st.session_state[INDEX_KEY])
    state = "reviewed" if labels.meta.reviewed else "not reviewed yet"
    st.subheader(f"{index + 1} / {len(photos)}: {photo.image.name}")
    st.write(f"{len(labels.boxes)} boxes, {state}, least sure {labels.meta.least_confidence:.2f}")

    nav = st.columns(3)
    with nav[0]:
        st.button("◀ Previous", on_click=_on_step, args=(-1, len(photos)), key=PREFIX + "prev")
    with nav[1]:
        st.button("Looks right: mark reviewed ▶", on_click=_on_reviewed, args=(photo, len(photos)),
                  key=PREFIX + "reviewed", type="primary")
    with nav[2]:
        st.button("Next ▶", on_click=_on_step, args=(1, len(photos)), key=PREFIX + "next")

    drawn = draw_boxes(image, labels, st.session_state.get(BOX_KEY))
    st.image(cv2.cvtColor(drawn, cv2.COLOR_BGR2RGB), width=min(width, DISPLAY_MAX_WIDTH))
    _box_editor(photo, labels)
    _box_adder(photo, width, height)
