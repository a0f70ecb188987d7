from binary import from_binary, to_binary


def test_zero_and_one():
    assert to_binary(0) == "0"
    assert to_binary(1) == "1"


def test_small_numbers():
    assert to_binary(5) == "101"
    assert to_binary(6) == "110"
    assert to_binary(8) == "1000"


def test_round_trip():
    for n in (3, 10, 77):
        assert from_binary(to_binary(n)) == n
