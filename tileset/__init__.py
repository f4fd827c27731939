"""The tile set as data: the class table, group names, image suffixes and YOLO label files.

Sits between `scoring` (pure rules) and everything that reads or makes photos
(`vision`, `datasets`, `vision.tools`, `appui`), so none of those needs another to know
what a class id or a label file is.
"""
