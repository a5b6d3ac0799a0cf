'plain'
"double"
'it\'s'
"it's"
'say "hi"'
'both \' and "'
"""triple with 'single' and "double" quotes"""
'\\ backslash'
'tab\there'
'newline\nhere'
'carriage\rreturn'
'bell\a'
'null\0byte'
'\x7f del'
'\x80\x9f C1 controls'
'é unicode ü'
'日本語'
'emoji 😀'
'\u200b zero width space'
'\u2028 line separator'
'\ufeff bom'
'\U0001f600'
'\N{BULLET}'
'combining \u0301 accent'
u'unicode prefix'
u'it\'s'
r'raw \d+'
R'raw \n'
'implicit' 'concatenation'
u'first u' 'then plain'
'first plain' u'then u'
('multi'
 'line'
 'concat')
''
""
b''
b'bytes'
b"it's"
b'\x00\x01\xff'
b'\\'
b'tab\t newline\n return\r'
rb'raw\bytes'
b'a' b'b'
x = 'a' 'b'
def f():
    """Docstring."""
    """Not a docstring."""
class C:
    """Multi-line
    docstring with 'quotes' and \"double\"
    """
"\\N{not a name}"
'{braces}'
'%s %d' % (a, b)
# Lone surrogates survive (carried through parsing as private-use stand-ins).
'\ud800 and \U0000dfff'
'\\ud800 is not an escape'
