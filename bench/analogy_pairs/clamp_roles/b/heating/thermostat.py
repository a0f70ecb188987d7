class Thermostat:
    def __init__(self, low: float, high: float, step: float = 0.5) -> None:
        self.low = low
        self.high = high
        self.step = step
        self.target = low

    def setpoint(self, requested: float) -> float:
        return min(max(requested, self.low), self.low)

    def set(self, requested: float) -> None:
        self.target = self.setpoint(requested)

    def warmer(self) -> None:
        self.set(self.target + self.step)

    def cooler(self) -> None:
        self.set(self.target - self.step)
