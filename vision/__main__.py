"""python -m vision {detect,read,calibrate} ...

    python -m vision detect [--model DIR] IMAGE...   one JSON line per image: tiles found
    python -m vision read IMAGE... [flags]            one JSON line per image: tiles, hand, score
    python -m vision calibrate PHOTO... [--models DIR] [--bonus LIST]
                                                      learn a tile set from a photo of its calibration layout

`detect` prints, per image in order,
{"image", "width", "height", "tiles": [{"cls", "xyxy", "conf"}]} with boxes in
pixels of the original image (after EXIF orientation), or
{"image", "error"} when the file cannot be read; the run goes on.  Exit status
0 when every image was read, 1 when some were not, 2 when the models cannot
be loaded.  Output is ASCII JSON: a file name that is not valid UTF-8 comes out
escapes and all (json.loads + os.fsencode give its bytes back), whatever the
terminal's encoding; a reader that stops early (`| head -1`) ends the run quietly.  Several
images are read `DetectorSettings.photos_at_once` at a time (`vision.at_once`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

USAGE = __doc__


def build_detect_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vision detect", description="Find and name the tiles of photos.")
    parser.add_argument("images", nargs="+", help="image files (JPEG, PNG, ...)")
    parser.add_argument("--models", "--model", dest="model", type=Path, default=None,
                        help="models folder: its version in use is read (default: the repository's models/, "
                             "see python -m vision.registry)")
    return parser


def detect_main(argv: list[str]) -> int:
    args = build_detect_parser().parse_args(argv)
    from tileset.classes import ClassTableMismatch
    from vision.at_once import emit_lines, in_order, settings_for
    from vision.detector import DEFAULT, TileDetector
    from vision.images import ImageError
    from vision.models import ModelLoadError

    settings = settings_for(DEFAULT, len(args.images))
    try:
        from vision.registry import active_dir

        detector = TileDetector.load(active_dir(args.model), settings)  # DIR's version in use
    except (ModelLoadError, ClassTableMismatch) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    def detect_one(image: str) -> dict[str, object]:
        try:
            dets, (width, height) = detector.detect_file(image)
            return {"image": image, "width": width, "height": height, "tiles": dets.to_json()}
        except ImageError as error:
            return {"image": image, "error": str(error)}
        except MemoryError:
            return {"image": image, "error": "out of memory while reading the image"}
        except Exception as error:  # one odd file must not end the run for the others
            return {"image": image, "error": f"internal error: {type(error).__name__}: {error}"}

    return emit_lines(in_order(detect_one, args.images, settings.photos_at_once), ascii_only=True)  # ASCII: see the module doc


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in {"-h", "--help"}:
        print(USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "detect":
        return detect_main(rest)
    if command == "calibrate":
        from training.calibrate import main as calibrate_main  # learning a set; imported only when asked for

        return int(calibrate_main(rest) or 0)
    if command == "read":
        from vision.read import main as read_main  # the layout stage; imported only when asked for

        return int(read_main(rest) or 0)
    print(f"error: unknown command {command!r}\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
