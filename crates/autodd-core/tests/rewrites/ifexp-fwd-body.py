label = 'big' if size > 10 else 'small'
print(f'{(x if x else default) + 1}')
