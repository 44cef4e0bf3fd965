from reelscope.cli import app

app()
