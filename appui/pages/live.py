from appui import live

live.render()
