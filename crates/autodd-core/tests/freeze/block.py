setup()
# autodd: freeze-start
x = """
# autodd: end-freeze
this is text, not a marker
"""
y = x.strip()
# autodd: end-freeze
after()
