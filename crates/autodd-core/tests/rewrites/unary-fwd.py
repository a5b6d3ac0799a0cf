if not ready:
    flip = -offset + ~mask
limit = -1
