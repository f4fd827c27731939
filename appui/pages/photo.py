from appui import photo

photo.render()
