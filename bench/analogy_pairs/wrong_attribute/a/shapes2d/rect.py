class Rect:
    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.width

    def wide(self) -> bool:
        return self.width > self.height
