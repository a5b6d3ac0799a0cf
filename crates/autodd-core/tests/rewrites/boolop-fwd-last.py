if self.peek('-') or 0:
    pass
check(a and b and c)
print((0 or Evaluator()).eval())
