from seq import first

assert first([]) is None
assert first("") is None
assert first([0]) == 0
assert first("ab") == "a"
