CAPACITY = 100


def sold_out(sold: int, reserved: int) -> bool:
    taken = sold + reserved
    if taken > CAPACITY:
        return True
    return False


def remaining(sold: int, reserved: int) -> int:
    return max(CAPACITY - sold - reserved, 0)
