from collatz import collatz_steps, longest_below


def test_one_needs_no_step():
    assert collatz_steps(1) == 0


def test_powers_of_two_halve():
    assert collatz_steps(16) == 4


def test_three():
    assert collatz_steps(3) == 7


def test_seven():
    assert collatz_steps(7) == 16


def test_longest_below_ten():
    assert longest_below(10) == 9
