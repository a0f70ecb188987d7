def gets_discount(is_member: bool, has_coupon: bool, total: float) -> bool:
    if total <= 0:
        return False
    return is_member and has_coupon


def price(total: float, is_member: bool, has_coupon: bool) -> float:
    if gets_discount(is_member, has_coupon, total):
        return round(total * 0.9, 2)
    return total
