"""`python -m vision.evaluate`: the stable command name of `training.evaluate` (the train extra's tools live there)."""

if __name__ == "__main__":
    import sys

    from training.evaluate import main

    sys.exit(main())
