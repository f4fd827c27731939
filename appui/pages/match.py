from appui import match

match.render()
