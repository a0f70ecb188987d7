from ports import parse_port, server_address

for value in (None, "", "  ", "\t"):
    assert parse_port(value) is None
    assert parse_port(value, default=1) == 1
for port in range(1, 65536, 97):
    assert parse_port(f" {port} ") == port
assert server_address({"host": "h", "port": "9"}) == "h:9"
assert server_address({}) == "localhost:8000"
