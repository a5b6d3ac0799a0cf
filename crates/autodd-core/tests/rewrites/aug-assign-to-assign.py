total += price * qty
self.count -= 1
