"""Reading a port number from configuration text."""


def parse_port(value, default=0):
    """The port in `value` ("8080", " 443 "), or `default` when `value` is empty or missing (None unless given)."""
    if value is None or not value.strip():
        return default
    port = int(value)
    if not 0 < port < 65536:
        raise ValueError(f"port out of range: {port}")
    return port


def server_address(config):
    host = config.get("host") or "localhost"
    port = parse_port(config.get("port"), default=8000)
    return f"{host}:{port}"
