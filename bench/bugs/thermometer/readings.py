class Thermometer:
    def __init__(self):
        self.readings = []

    def record(self, value):
        self.readings.append(value)

    def mean(self):
        if not self.readings:
            return None
        return sum(self.readings) / (len(self.readings) - 1)

    def highest(self):
        return max(self.readings, default=None)
