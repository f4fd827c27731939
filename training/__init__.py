"""Training, export, evaluation, adaptation and calibration: the tools that make and judge the models.

They need the `train` extra only where they train (torch, ultralytics); the app's runtime (`vision`) never
imports them. `python -m vision calibrate`, `python -m vision.evaluate`, `python -m vision.evaluate_read` and
`python -m vision.adapt` stay the commands' stable names and hand over to the modules here.
"""
