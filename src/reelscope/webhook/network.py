"""Which hosts a webhook may reach (spec §4.6, §6.1; ARCHITECTURE §6).

A receiver must be public: no ``localhost``, ``.local`` or ``.internal`` names, and every address a
name resolves to must be globally reachable in the sense of ``ipaddress``'s ``is_global`` (private,
loopback, link-local, CGNAT, reserved, unspecified, IPv6 unique-local and the like are not), and not
multicast. IPv6 forms that embed an IPv4 address (mapped, 6to4, Teredo, NAT64) are judged by the
embedded address too. The operator may exempt networks of their own with
``REELSCOPE_WEBHOOK_ALLOWED_NETWORKS``. The same guard runs when a URL is saved and before every
attempt, and the connection is then made to an address it approved (``transport.py``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit

from reelscope.kit.logging import get_logger

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

MAX_URL_LENGTH = 2048  # §4.6
BLOCKED_NAMES = ("localhost",)
BLOCKED_SUFFIXES = (".localhost", ".local", ".internal")
log = get_logger(__name__)

RESOLVE_TIMEOUT_SECONDS = 5.0
# NAT64 well-known prefix (RFC 6052): the last 32 bits are an IPv4 address
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class BlockedAddress(Exception):
    """The host is not one a webhook may reach; the message says why."""


class Resolver(Protocol):
    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        """Every address ``host`` resolves to; raises ``OSError`` when it does not resolve."""
        ...


class LoopResolver:
    """The event loop's ``getaddrinfo`` (off-loop in a thread, as asyncio does it)."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        loop = asyncio.get_running_loop()
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        seen: dict[str, IPAddress] = {}
        for _family, _type, _proto, _name, sockaddr in infos:
            text = str(sockaddr[0]).split("%", 1)[0]  # drop an IPv6 zone index
            seen.setdefault(text, ipaddress.ip_address(text))
        return list(seen.values())


@dataclass(frozen=True)
class StaticResolver:
    """Names mapped by hand; IP literals resolve to themselves. For tests and benchmarks."""

    names: Mapping[str, Sequence[str]]

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        try:
            return [ipaddress.ip_address(host)]
        except ValueError:
            pass
        if host not in self.names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [ipaddress.ip_address(a) for a in self.names[host]]


class RememberingResolver:
    """Another resolver's answers kept for one request: a host resolved before the request's write
    transaction is answered from memory inside it, its failure too (``unresolved``), so the endpoint's
    check waits on nothing while it may hold SQLite's write lock (webhook/endpoints.py)."""

    def __init__(self, resolver: Resolver) -> None:
        self._resolver = resolver
        self._answers: dict[tuple[str, int], list[IPAddress] | OSError] = {}

    def unresolved(self, host: str, port: int) -> None:
        """``host`` did not resolve in time: asked again, it fails at once."""
        self._answers.setdefault((host, port), OSError(f"{host} did not resolve"))

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        answer = self._answers.get((host, port))
        if answer is None:
            try:
                answer = await self._resolver.resolve(host, port)
            except OSError as exc:
                answer = exc
            self._answers[(host, port)] = answer
        if isinstance(answer, OSError):
            raise answer
        return answer


NOT_PUBLIC_MESSAGE = "url host {host} does not resolve to a public address"


def parse_networks(text: str) -> tuple[IPNetwork, ...]:
    """``REELSCOPE_WEBHOOK_ALLOWED_NETWORKS``: comma-separated CIDRs."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    embedded = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if ip in _NAT64:
        embedded.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [e for e in embedded if e is not None]


# Ranges some Python versions' ``is_global`` calls global although they are not reachable public
# unicast (or carry an IPv4 address that may be private): refused explicitly.
_NOT_PUBLIC: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(cidr)
    for cidr in (
        "192.0.0.0/24",  # IETF protocol assignments
        "192.88.99.0/24",  # deprecated 6to4 relay anycast
        "::/96",  # IPv4-compatible IPv6 (deprecated)
        "::ffff:0:0:0/96",  # IPv4-translated
        "64:ff9b:1::/48",  # local-use NAT64
        "fec0::/10",  # site-local (deprecated)
    )
)


def is_public(ip: IPAddress) -> bool:
    """Globally reachable unicast, including what an IPv6 address carries inside it."""
    if ip.is_multicast or not ip.is_global:
        return False
    if any(ip in net for net in _NOT_PUBLIC if net.version == ip.version):
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        return all(is_public(inner) for inner in _embedded_ipv4(ip))
    return True


def normalize_host(host: str) -> str:
    return host.rstrip(".").lower()


def blocked_name_reason(host: str) -> str | None:
    name = normalize_host(host)
    if name in BLOCKED_NAMES or name.endswith(BLOCKED_SUFFIXES) or name in {"local", "internal"}:
        return f"host {name} is not public"
    return None


@dataclass(frozen=True)
class AddressGuard:
    """Resolves a host and returns its addresses only if every one of them may be reached."""

    allowed_networks: tuple[IPNetwork, ...] = ()
    resolver: Resolver = field(default_factory=LoopResolver)

    def allows(self, ip: IPAddress) -> bool:
        candidates: list[IPAddress] = [ip]
        if isinstance(ip, ipaddress.IPv6Address):
            candidates.extend(_embedded_ipv4(ip))
        if any(c in net for c in candidates for net in self.allowed_networks if c.version == net.version):
            return True
        return is_public(ip)

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        """The addresses to connect to; ``BlockedAddress`` if the name is banned, unresolvable, or
        any address it resolves to is not allowed (a name that mixes public and private is refused)."""
        reason = blocked_name_reason(host)
        if reason:
            raise BlockedAddress(reason)
        try:
            async with asyncio.timeout(RESOLVE_TIMEOUT_SECONDS):
                addresses = await self.resolver.resolve(normalize_host(host), port)
        except (OSError, TimeoutError, UnicodeError) as exc:
            log.info("webhook.address.unresolved", host=host, error_type=type(exc).__name__)
            raise BlockedAddress(NOT_PUBLIC_MESSAGE.format(host=host)) from exc
        refused = [str(a) for a in addresses if not self.allows(a)]
        if refused or not addresses:
            # one message for "does not resolve" and "resolves privately": a client must not learn
            # which internal names exist or what they point to; the details go to the log only
            log.info("webhook.address.refused", host=host, addresses=refused)
            raise BlockedAddress(NOT_PUBLIC_MESSAGE.format(host=host))
        return addresses


def guard_from_settings(allowed_networks: str, resolver: Resolver | None = None) -> AddressGuard:
    return AddressGuard(parse_networks(allowed_networks), resolver or LoopResolver())


def url_problems(url: str) -> list[str]:
    """The §4.6 rules that can be checked without the network; an empty list means well-formed."""
    problems: list[str] = []
    if len(url) > MAX_URL_LENGTH:
        problems.append(f"url must be at most {MAX_URL_LENGTH} characters")
    if not url.lower().startswith("https://"):
        problems.append("url must start with https://")
        return problems
    if any(ch.isspace() or ord(ch) < 0x21 or ord(ch) == 0x7F for ch in url):
        problems.append("url must not contain spaces or control characters")
        return problems
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not host:
        problems.append("url must name a host")
        return problems
    if "@" in parts.netloc:
        problems.append("url must not carry credentials")
    if not host.isascii():
        problems.append("url host must be ASCII; use the punycode (xn--) form of the name")
    try:
        port = parts.port  # raises on a port that is not a number up to 65535
    except ValueError:
        port = 0
    if port == 0:  # no host listens on port 0 (and ``host_and_port`` would have read it as 443)
        problems.append("url port must be a number from 1 to 65535")
    reason = blocked_name_reason(host)
    if reason:
        problems.append(f"url {reason}")
    return problems


def host_and_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return normalize_host(parts.hostname or ""), parts.port or 443
