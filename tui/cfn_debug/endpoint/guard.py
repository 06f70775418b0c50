"""Who may call the endpoint: no web page, and no host name but loopback's and the bound one.

Two attacks reach a loopback server from the developer's own browser. A page can POST to
``http://127.0.0.1:PORT`` with a ``text/plain`` body (a "simple" request: no CORS preflight),
which runs a handler even if the page cannot read the answer; and DNS rebinding points the page's
own host name at 127.0.0.1, after which the page reads the answers too (log tails included).
Browsers always send ``Origin`` on such a POST (and ``Sec-Fetch-*`` on every request), and a
rebound request carries the attacker's name in ``Host``. So the endpoint refuses any request
with an ``Origin`` or ``Sec-Fetch-*`` header, and any ``Host`` that is not a loopback name or
address or the address it is bound to. SDKs, curl and the AWS CLI send neither browser header and
name the address they connect to, so they are unaffected.
"""

from __future__ import annotations

import functools
import ipaddress

#: Host names that always mean this machine (resolved locally, never through DNS).
LOOPBACK_NAMES = frozenset({"localhost"})


def split_host(value: str) -> str | None:
    """The host of a Host header (``name``, ``name:port``, ``[v6]:port``), None if malformed."""
    value = value.strip()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1 :]
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            return None
        return host
    host, colon, port = value.partition(":")
    if colon and not port.isdigit():
        return None
    return host


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


@functools.lru_cache(maxsize=256)
def host_allowed(value: str | None, bound: str) -> bool:
    """Whether a request's Host header names this endpoint (see the module docstring).

    Allowed: ``localhost``, any loopback address, the address or name the endpoint is bound to,
    and, when it is bound to every interface (0.0.0.0 or ::), any IP address (a literal address
    cannot be rebound). A missing Host is allowed only because HTTP/1.0 lacks it (h11 already
    refuses an HTTP/1.1 request without one); no browser sends such a request.
    """
    if value is None:
        return True
    host = split_host(value)
    if host is None or not host:
        return False
    lowered = host.lower()
    if lowered in LOOPBACK_NAMES or lowered == bound.lower():
        return True
    address = _ip(host)
    if address is None:
        return False
    if address.is_loopback:
        return True
    bound_ip = _ip(bound)
    if bound_ip is not None and bound_ip.is_unspecified:
        return True
    return bound_ip is not None and address == bound_ip


def browser_header(headers: list[tuple[str, str]]) -> str | None:
    """The name of the first header only a browser sends (Origin, Sec-Fetch-*), else None."""
    for name, _ in headers:
        if name == "origin" or name.startswith("sec-fetch-"):
            return name
    return None
