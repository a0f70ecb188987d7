def zero_pad(number, width):
    """number as text, left-padded with zeros to width."""
    return str(number).rjust("0", width)


def invoice_id(seq):
    return "INV-" + zero_pad(seq, 6)
