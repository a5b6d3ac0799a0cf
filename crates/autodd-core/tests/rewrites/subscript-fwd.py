first = rows[0][1:]
rows[0] = None
