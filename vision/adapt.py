"""`python -m vision.adapt`: the stable command name of `training.adapt`."""

if __name__ == "__main__":
    import sys

    from training.adapt import main

    sys.exit(main())
