__version__ = "0.5.19.dev0+sim"
