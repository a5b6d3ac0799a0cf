x: int = 5
y: str
self.z: list = []
