if a:
    b()
else:
    c()
if x:
    y()
elif z:
    w()
