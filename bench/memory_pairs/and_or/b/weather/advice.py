def stay_inside(raining: bool, cold: bool, hour: int) -> bool:
    if hour < 6:
        return True
    return raining and cold
