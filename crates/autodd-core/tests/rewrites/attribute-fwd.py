value = config.block.size
config.size = 4
del obj.attr
