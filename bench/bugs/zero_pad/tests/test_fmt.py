from fmt import invoice_id, zero_pad


def test_pad():
    assert zero_pad(42, 5) == "00042"


def test_invoice():
    assert invoice_id(7) == "INV-000007"
