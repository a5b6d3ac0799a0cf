class Grid:
    def __init__(self, cells):
        self.cells = cells
    @property
    def height(self):
        return len(self.cells)
    @property
    def width(self):
        return len(self.cells[0])
    @property
    def dims(self):
        return self.height, self.width
    @property
    def size(self):
        return self.height * self.width
    def area(self):
        return self.size
class Other:
    size = 3
    @property
    def label(self):
        return 'm'
    @label.setter
    def label(self, value):
        pass
g = Grid([[1, 2]])
print(g.dims, g.area(), Grid([[3]]).height)
with __freeze__:
    print(g.width)
