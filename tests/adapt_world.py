"""A tiny generated tile world for adaptation tests: fixed tile positions, one simple pattern per face.

Every photo holds the same six tile slots, so a constant tile finder (an ONNX graph that ignores
its input) finds every tile; the face classifier is what changes.  Each face is a colour, and two
"artworks" colour the 42 faces differently, like two tile sets: a reader of one misreads the
other.  `colour_reader` builds such a reader as a small ONNX graph (nearest reference colour),
so tests get a perfect or a wrong classifier without training one.
"""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np

from tileset.classes import FACE_NAMES
from tileset.labelfiles import LabelBox, LabelMeta, PhotoLabels, list_photos

WIDTH, HEIGHT = 224, 96
TILE_W, TILE_H = 28, 40
SLOTS = tuple((8 + i * 36, 28) for i in range(6))  # top-left corners
# 42 well-separated colours (RGB), one per face; artwork "B" gives each face another class's colour.
COLOURS_RGB = tuple((r, g, b) for b in (40, 140, 240) for g in (30, 100, 170, 240) for r in (30, 100, 170, 240))[:42]
B_SHIFT = 17


def face_colour(class_id: int, artwork: str) -> tuple[int, int, int]:
    return COLOURS_RGB[(class_id + (B_SHIFT if artwork == "B" else 0)) % len(COLOURS_RGB)]


def slot_xyxy(slot: int) -> tuple[float, float, float, float]:
    x, y = SLOTS[slot]
    return (float(x), float(y), float(x + TILE_W), float(y + TILE_H))


def draw_face(class_id: int, artwork: str) -> np.ndarray:
    """A face: a light tile with a wide block of the face's colour (BGR image)."""
    face = np.full((TILE_H, TILE_W, 3), 245, np.uint8)
    r, g, b = face_colour(class_id, artwork)
    cv2.rectangle(face, (3, 4), (TILE_W - 4, TILE_H - 5), (b, g, r), -1)
    return face


def render(classes: list[int], artwork: str, rng: random.Random) -> np.ndarray:
    image = np.full((HEIGHT, WIDTH, 3), (60, 110, 60), np.uint8)
    image = np.clip(image.astype(np.int16) + rng.randint(-20, 20), 0, 255).astype(np.uint8)
    for slot, class_id in enumerate(classes):
        x, y = SLOTS[slot]
        image[y : y + TILE_H, x : x + TILE_W] = draw_face(class_id, artwork)
    noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, 4, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def write_photos(folder: Path, n: int, artwork: str, seed: int, *, yolo_layout: bool = True) -> None:
    """`n` labeled photos: folder/images/NAME.jpg and folder/labels/NAME.txt (reviewed, as a person left them)."""
    rng = random.Random(seed)
    images = folder / "images" if yolo_layout else folder
    images.mkdir(parents=True, exist_ok=True)
    truth: dict[str, list[int]] = {}
    for i in range(n):
        start = (i * 6) % len(FACE_NAMES)  # consecutive photos cover every face
        classes = [(start + k) % len(FACE_NAMES) for k in range(6)]
        rng.shuffle(classes)
        name = f"{artwork}{seed}_{i:03d}"
        cv2.imwrite(str(images / f"{name}.png"), render(classes, artwork, rng))
        truth[name] = classes
    for photo in list_photos(folder):
        boxes = tuple(LabelBox.from_xyxy(c, slot_xyxy(s), WIDTH, HEIGHT) for s, c in enumerate(truth[photo.name]))
        photo.save(PhotoLabels(boxes, LabelMeta("human", True)))


def constant_tile_finder(path: Path, imgsz: int = 224, conf: float = 0.95) -> None:
    """An ONNX 'tile finder' that always reports the six slots (in letterboxed input pixels) as face-up tiles,
    with confidence `conf`. The slots are placed symmetrically: the mirror image shows them too."""
    import onnx
    from onnx import TensorProto, helper

    scale = min(imgsz / WIDTH, imgsz / HEIGHT)
    pad_x, pad_y = (imgsz - round(WIDTH * scale)) / 2, (imgsz - round(HEIGHT * scale)) / 2
    pad_x, pad_y = round(pad_x - 0.1), round(pad_y - 0.1)
    columns = []
    for slot in range(len(SLOTS)):
        x1, y1, x2, y2 = slot_xyxy(slot)
        cx, cy = (x1 + x2) / 2 * scale + pad_x, (y1 + y2) / 2 * scale + pad_y
        columns.append([cx, cy, (x2 - x1) * scale, (y2 - y1) * scale, conf, 0.0])
    output = np.asarray(columns, np.float32).T[None]  # (1, 6, anchors)
    const = helper.make_tensor("boxes", TensorProto.FLOAT, output.shape, output.ravel().tolist())
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["mean"], keepdims=0),
        helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("z", TensorProto.FLOAT, [], [0.0])),
        helper.make_node("Mul", ["mean", "zero"], ["nothing"]),
        helper.make_node("Constant", [], ["table"], value=const),
        helper.make_node("Add", ["table", "nothing"], ["output0"]),
    ]
    graph = helper.make_graph(
        nodes, "constant_finder",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, imgsz, imgsz])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(output.shape))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    for key, value in {"names": "{0: 'tile', 1: 'back'}", "imgsz": f"[{imgsz}, {imgsz}]", "task": "detect"}.items():
        prop = model.metadata_props.add()
        prop.key, prop.value = key, value
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))


def colour_reader(path: Path, artwork: str, imgsz: int = 32) -> None:
    """An ONNX face classifier that names a crop by the nearest face colour of `artwork`."""
    import onnx
    from onnx import TensorProto, helper

    refs = np.array([face_colour(k, artwork) for k in range(len(FACE_NAMES))], np.float32) / 255.0  # RGB
    lo, hi = imgsz // 2 - 4, imgsz // 2 + 4
    scale = 400.0

    def const(name: str, array: np.ndarray, dtype: int = TensorProto.FLOAT) -> onnx.NodeProto:
        return helper.make_node("Constant", [], [name], value=helper.make_tensor(name + "_v", dtype, array.shape,
                                                                                   array.ravel().tolist()))

    nodes = [
        const("starts", np.array([lo, lo], np.int64), TensorProto.INT64),
        const("ends", np.array([hi, hi], np.int64), TensorProto.INT64),
        const("axes", np.array([2, 3], np.int64), TensorProto.INT64),
        helper.make_node("Slice", ["images", "starts", "ends", "axes"], ["centre"]),
        helper.make_node("ReduceMean", ["centre"], ["mean"], axes=[2, 3], keepdims=0),  # (N, 3) RGB
        const("refs_t", (2 * scale * refs.T).astype(np.float32)),
        const("bias", (-scale * (refs**2).sum(axis=1)).astype(np.float32)),
        helper.make_node("MatMul", ["mean", "refs_t"], ["dot"]),
        helper.make_node("Add", ["dot", "bias"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "colour_reader",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, imgsz, imgsz])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", len(FACE_NAMES)])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    names = {i: n for i, n in enumerate(FACE_NAMES)}
    for key, value in {"names": repr(names), "imgsz": f"[{imgsz}, {imgsz}]", "task": "classify"}.items():
        prop = model.metadata_props.add()
        prop.key, prop.value = key, value
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))
