DEFAULTS = {"theme": "light", "font_size": 12}


def get_setting(config, key, default=None):
    """config[key], falling back to default when the key is absent."""
    return config[key]


def effective(config):
    return {k: get_setting(config, k, v) for k, v in DEFAULTS.items()}
