import importlib

importlib.import_module("appui.labeling").render()
