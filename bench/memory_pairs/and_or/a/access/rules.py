def can_edit(is_owner: bool, is_admin: bool, locked: bool) -> bool:
    if locked:
        return False
    return is_owner and is_admin
