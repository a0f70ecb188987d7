"""Which environment variables may reach sandboxed code: plain names, nothing that looks like a secret."""

from __future__ import annotations

import re
from typing import Mapping

# A variable whose name contains one of these never reaches sandboxed code, whoever passes it.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|PRIVATE|SESSION", re.IGNORECASE)
DROPPED_PREFIXES = ("LD_", "DYLD_", "SSH_", "GPG_", "AWS_", "AZURE_", "GOOGLE_", "DOCKER_", "KUBE")
SECRET_VALUE = re.compile(r"sk-ant-|-----BEGIN [A-Z ]*PRIVATE KEY|gh[pousr]_[A-Za-z0-9]{20,}")


def clean_env(env: Mapping[str, str]) -> dict[str, str]:
    """Keep only plain, non-secret variables; the caller's allow-list is checked again here."""
    kept: dict[str, str] = {}
    for name, value in env.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or "\0" in value:
            continue
        if SECRET_NAME.search(name) or name.upper().startswith(DROPPED_PREFIXES) or SECRET_VALUE.search(value):
            continue
        kept[name] = value
    return kept
