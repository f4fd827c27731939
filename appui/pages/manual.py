from appui import manual

manual.render()
