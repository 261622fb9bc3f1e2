"""Tiny helpers that read settings from the environment and fail loudly on bad values."""

import ipaddress
import os
import re

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of true/false/1/0/yes/no, got {raw!r}")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_networks(name: str) -> list[str]:
    """A comma-separated list of IP networks in CIDR form (an address alone is its own network)."""
    networks = []
    for item in env_list(name, []):
        try:
            networks.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} must list networks like 203.0.113.0/24 or 2001:db8::/48, separated by commas; "
                f"{item!r} is not one"
            ) from None
    return networks


_RATE = re.compile(r"\d+/\d*[smhd]")  # django-ratelimit's "count/period": 10/h, 100/5m


def env_rate(name: str, default: str) -> str:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    if not _RATE.fullmatch(raw.strip()):
        raise ImproperlyConfigured(f"{name} must be a rate like 30/m or 100/5m (s, m, h or d), got {raw!r}")
    return raw.strip()


def is_local_host(host: str) -> bool:
    """This machine's names: loopback addresses, localhost and *.localhost."""
    host = host.strip("[]").lower()
    return host in ("localhost", "::1", "0.0.0.0") or host.startswith("127.") or host.endswith(".localhost")


def site_url_port_warning(site_url: str, port: int) -> str:
    """What to say when SITE_URL names this machine on another port than the site serves on: the
    credentials, QR codes and status-list URLs signed with it would point where nothing answers,
    and the site's own verifier could not finish its check. Empty when they agree, or when SITE_URL
    is a public address (a reverse proxy in front listens on its own port)."""
    from urllib.parse import urlsplit

    parts = urlsplit(site_url)
    if not parts.hostname or not is_local_host(parts.hostname):
        return ""
    named = parts.port or (443 if parts.scheme == "https" else 80)
    if named == port:
        return ""
    return (
        f"SITE_URL is {site_url} but the site serves on port {port}: certificates, their QR codes and "
        f"signed credentials would name a port where nothing answers. Unset SITE_URL (it then follows "
        f"PORT) or set it to http://127.0.0.1:{port}."
    )
