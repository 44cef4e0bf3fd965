"""A real HTTPS webhook receiver on 127.0.0.1 for tests and benchmarks.

A throwaway CA and a server certificate (for ``receiver.test`` and 127.0.0.1) are made with
``cryptography``; the server is uvicorn running a tiny ASGI app in a thread of its own. What it does
depends on the path: ``/status/NNN`` answers NNN, ``/redirect`` answers 302 to ``/ok``, ``/hang``
holds the request until released, ``/gate`` holds it while ``hold`` is set, ``/switch`` answers
``switch_status``, ``/script`` answers the next status queued in ``script``, and any other path
answers 200.
"""

from __future__ import annotations

import asyncio
import gzip
import ipaddress
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

RECEIVER_HOST = "receiver.test"


@dataclass(frozen=True)
class TlsFiles:
    ca: Path
    cert: Path
    key: Path


def make_tls(directory: Path) -> TlsFiles:
    """A test CA and a server certificate it signed, for receiver.test and 127.0.0.1."""
    directory.mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Reelscope test CA")])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, RECEIVER_HOST)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(RECEIVER_HOST), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    files = TlsFiles(ca=directory / "ca.pem", cert=directory / "server.pem", key=directory / "server.key")
    files.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return files


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    raw: bytes
    at: float

    @property
    def body(self) -> bytes:
        """The body as the sender encoded it, un-gzipped."""
        if self.headers.get("content-encoding") == "gzip":
            return gzip.decompress(self.raw)
        return self.raw

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    port: int = 0
    received: list[Received] = field(default_factory=list)
    script: deque[int] = field(default_factory=deque)
    switch_status: int = 200
    hold: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str = "/hook", host: str = "127.0.0.1") -> str:
        return f"https://{host}:{self.port}{path}"

    def at(self, path: str) -> list[Received]:
        with self._lock:
            return [r for r in self.received if r.path == path]

    def reset(self) -> None:
        with self._lock:
            self.received.clear()
        self.script.clear()
        self.switch_status = 200
        self.hold.clear()
        self.release.clear()
        self.arrived.clear()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        path = scope["path"]
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        with self._lock:
            self.received.append(Received(path, headers, b"".join(chunks), time.monotonic()))
        self.arrived.set()
        status, extra = 200, []
        if path.startswith("/status/"):
            status = int(path.rsplit("/", 1)[1])
        elif path == "/redirect":
            status, extra = 302, [(b"location", self.url("/ok").encode())]
        elif path == "/script":
            status = self.script.popleft() if self.script else 200
        elif path == "/switch":
            status = self.switch_status
        elif path == "/gate":
            while self.hold.is_set() and not self.release.is_set():
                await asyncio.sleep(0.01)
        elif path == "/hang":
            while not self.release.is_set():
                await asyncio.sleep(0.01)
        await send({"type": "http.response.start", "status": status, "headers": extra})
        await send({"type": "http.response.body", "body": b"ok"})


class ReceiverServer:
    """uvicorn serving a ``Receiver`` over TLS in a background thread."""

    def __init__(self, tls: TlsFiles) -> None:
        self.receiver = Receiver()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.receiver.port = self._sock.getsockname()[1]
        config = uvicorn.Config(
            self.receiver,
            ssl_certfile=str(tls.cert),
            ssl_keyfile=str(tls.key),
            log_level="critical",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def start(self) -> Receiver:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the test receiver did not start")
            time.sleep(0.01)
        return self.receiver

    def stop(self) -> None:
        self.receiver.release.set()
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._sock.close()
