import re
PATTERN = re.compile(r'(\d+)x(\d+)')
HEADER = b'\x89P'
label = f'tile {PATTERN.pattern}'
raise ValueError(f'bad {label}')
