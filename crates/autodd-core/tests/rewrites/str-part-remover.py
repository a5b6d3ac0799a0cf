SCRIPT = """
add A1 bolt 100
move A1 B2 bolt 30
"""
query = 'SELECT name FROM t'
word = 'single'
with __freeze__:
    kept = 'frozen two words'
