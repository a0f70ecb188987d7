from powers import next_power_of_two, pad_length


def test_zero_and_one():
    assert next_power_of_two(0) == 1
    assert next_power_of_two(1) == 1


def test_exact_power():
    assert next_power_of_two(8) == 8


def test_rounds_up():
    assert next_power_of_two(9) == 16


def test_pad_length():
    assert pad_length([1, 2, 3]) == 4
