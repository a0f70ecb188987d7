from tickets import parse_ticket, ticket_id

for number in list(range(0, 200)) + [10 ** k for k in range(1, 10)] + [10 ** k - 1 for k in range(1, 10)]:
    for width in (1, 3, 6, 8):
        got = ticket_id(number, width=width)
        assert got == "T" + str(number).rjust(width, "0"), (number, width, got)
        assert parse_ticket(got) == number
    assert ticket_id(number, prefix="S").startswith("S")
