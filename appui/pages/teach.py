import importlib

importlib.import_module("appui.teach").render()
