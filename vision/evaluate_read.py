"""`python -m vision.evaluate_read`: the stable command name of `training.evaluate_read`."""

if __name__ == "__main__":
    import sys

    from training.evaluate_read import main

    sys.exit(main())
