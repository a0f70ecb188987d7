class Station:
    def __init__(self) -> None:
        self.lowest = float("inf")
        self.highest = float("-inf")
        self.readings = 0

    def record(self, celsius: float) -> None:
        self.readings += 1
        self.highest = max(self.highest, celsius)
        self.lowest = max(self.lowest, celsius)
