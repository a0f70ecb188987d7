"""Secrets never reach the store: keys, tokens and passwords are replaced before a row is written."""

from __future__ import annotations

import os
import re
from typing import Callable, Mapping

_PATTERNS = (
    re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"sk-[A-Za-z0-9_\-]{16,}"),
    re.compile(r"gh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"github_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"xox[abprs]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"AKIA[0-9A-Z]{16}"),
    re.compile(r"AIza[0-9A-Za-z_\-]{30,}"),
    re.compile(r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{5,}"),  # JWT
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|$)", re.S),
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9_\-.=+/]{12,}"),
    re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"),  # credentials in a URL
)
# key = value / key: value / "key": "value" where the key names a secret.
_ASSIGNED = re.compile(
    r"""(?ix)
    (\b[\w.\-]*(?:password|passwd|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|credential)s?[\w.\-]*["']?\s*[:=]\s*)
    (["']?)([^\s"',;)}\]]{4,})(\2)
    """
)
_SECRET_ENV = re.compile(r"(?i)(key|token|secret|password|passwd|credential|auth)")
MASK = "<redacted>"


def _env_secrets(env: Mapping[str, str]) -> list[str]:
    values = [v for k, v in env.items() if _SECRET_ENV.search(k) and len(v) >= 8]
    return sorted(set(values), key=len, reverse=True)


def redact(text: str, env: Mapping[str, str] | None = None) -> str:
    if not text:
        return text
    return _apply(text, _env_secrets(os.environ if env is None else env))


def redactor(env: Mapping[str, str] | None = None) -> Callable[[str], str]:
    """`redact` for many texts in a row: the environment's secrets are looked up once, not per text
    (reading os.environ is most of the cost of redacting a short text)."""
    secrets = _env_secrets(os.environ if env is None else env)
    return lambda text: _apply(text, secrets) if text else text


def _apply(text: str, secrets: list[str]) -> str:
    for value in secrets:
        text = text.replace(value, MASK)
    for pattern in _PATTERNS:
        text = pattern.sub(MASK, text)
    return _ASSIGNED.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}{m.group(4)}", text)
