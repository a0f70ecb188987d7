"""Object-storage locations of the shared memory: which URIs are remote, the LanceDB storage options
for them, and error messages that name the setting to fix.

Credentials come only from the standard chain (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
`AWS_SESSION_TOKEN`, profiles, instance roles), which LanceDB reads itself: they are never copied into
the options built here, so no fixloop object, log line or run file can hold them. The endpoint of an
S3-compatible server comes from `AWS_ENDPOINT_URL`; plain HTTP is allowed only to a loopback address.
"""

from __future__ import annotations

import ipaddress
import os
import re
from typing import Mapping
from urllib.parse import urlsplit

from fixloop.adapters.memory.redact import redact

SCHEMES = ("s3", "gs", "az")
# A bucket that does not answer costs a run at most a few seconds, never object_store's default 180 s.
CONNECT_TIMEOUT = "2s"
REQUEST_TIMEOUT = "60s"  # a whole pull of a large table from a slow server; a dead host fails at connect
MAX_RETRIES = "2"
RETRY_TIMEOUT_SECONDS = "4"


class RemoteConfigError(ValueError):
    """The shared memory's location or its environment is unusable; the message names the setting."""


def is_remote(uri: str) -> bool:
    return uri.split("://", 1)[0].lower() in SCHEMES if "://" in uri else False


def check_uri(uri: str) -> None:
    parts = urlsplit(uri)
    if parts.scheme.lower() not in SCHEMES:
        raise RemoteConfigError(f"memory.uri {uri!r}: only {', '.join(s + '://' for s in SCHEMES)} are object storage")
    if "@" in parts.netloc or parts.password:
        raise RemoteConfigError("memory.uri must not carry credentials; use the standard environment "
                                "(AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY) or your credential files")
    if not parts.netloc:
        raise RemoteConfigError(f"memory.uri {uri!r} names no bucket (s3://BUCKET/PREFIX)")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def storage_options(uri: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """LanceDB `storage_options` for `uri`: endpoint, region, TLS rule and short timeouts; no secrets."""
    env = os.environ if env is None else env
    check_uri(uri)
    options = {"connect_timeout": CONNECT_TIMEOUT, "timeout": REQUEST_TIMEOUT,
               "client_max_retries": MAX_RETRIES, "client_retry_timeout": RETRY_TIMEOUT_SECONDS,
               "allow_http": "false"}
    if not uri.lower().startswith("s3://"):
        return options
    endpoint = env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL") or ""
    if endpoint:
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RemoteConfigError(f"AWS_ENDPOINT_URL {endpoint!r} is not an http(s) URL")
        if parts.username or parts.password:
            raise RemoteConfigError("AWS_ENDPOINT_URL must not carry credentials")
        if parts.scheme == "http":
            if not _loopback(parts.hostname):
                raise RemoteConfigError(f"AWS_ENDPOINT_URL {endpoint}: plain HTTP is allowed only to a loopback "
                                        "address (127.0.0.1, ::1, localhost); use https://")
            options["allow_http"] = "true"
        options["endpoint"] = endpoint
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or ("us-east-1" if endpoint else "")
    if region:
        options["region"] = region
    return options


_HINTS = (
    (re.compile(r"NoSuchBucket|bucket does not exist", re.I),
     "the bucket in memory.uri does not exist (create it, or fix memory.uri)"),
    (re.compile(r"InvalidAccessKeyId|SignatureDoesNotMatch|InvalidToken|ExpiredToken|AccessDenied|status: 40[13]", re.I),
     "the storage refused the credentials (check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN "
     "or your profile, and the bucket policy)"),
    (re.compile(r"connect|timed out|timeout|dns|resolve|refused|unreachable|error sending request", re.I),
     "the storage did not answer (check the network and AWS_ENDPOINT_URL)"),
)


def explain(uri: str, error: BaseException) -> str:
    """One line for the user: what went wrong with the shared memory at `uri` and which setting to look at.
    The raw error is cut to its gist and redacted (it may echo a request)."""
    text = redact(" ".join(f"{error}".split()))
    hint = next((h for pattern, h in _HINTS if pattern.search(text)), "")
    uri = redact(uri)  # `s3://key:secret@bucket` is refused, and never echoed either
    if not hint:  # our own refusals (schema version, embedder, settings) say it all already
        return f"shared memory {uri}: {text[:400]}"
    found = (re.search(p, text) for p in (r"<Code>(\w+)</Code>", r"status: (\d{3})",
                                           r"(Connection refused|timed out|error sending request)"))
    gist = next((m.group(1) for m in found if m), type(error).__name__)
    return f"shared memory {uri}: {hint} [{gist}]"
