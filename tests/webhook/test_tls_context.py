"""The webhook pump opens a delivery client on every pass (about once a second): the TLS context with the
roots and the operator's bundle is built once per process and bundle, not per client (§6.1 delivery;
loading the roots cost ~20 ms of CPU each time)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from reelscope.config import Settings
from reelscope.webhook.transport import DeliveryClient, tls_context
from tests.webhook.receiver import make_tls


def _serials(bundle: Path) -> set[str]:
    return {str(cert["serialNumber"]) for cert in tls_context(bundle).get_ca_certs()}


async def test_clients_share_one_context_per_bundle(tmp_path: Path) -> None:
    tls = make_tls(tmp_path / "tls")
    settings = Settings(data_dir=tmp_path / "data", webhook_ca_bundle=tls.ca)
    first, second = DeliveryClient.from_settings(settings), DeliveryClient.from_settings(settings)
    assert first.ssl_context is second.ssl_context
    no_bundle = DeliveryClient.from_settings(settings.model_copy(update={"webhook_ca_bundle": None}))
    assert no_bundle.ssl_context is not first.ssl_context  # certifi's roots alone
    for client in (first, second, no_bundle):
        await client.aclose()


def test_a_replaced_bundle_is_read_again(tmp_path: Path) -> None:
    old, new = make_tls(tmp_path / "old"), make_tls(tmp_path / "new")
    bundle = tmp_path / "bundle.pem"
    shutil.copy(old.ca, bundle)
    was = bundle.stat()
    before = _serials(bundle)
    shutil.copy(new.ca, bundle)  # in place: the same inode
    # and its modification time set back to the old file's, as a copy that keeps times leaves it
    os.utime(bundle, ns=(was.st_atime_ns, was.st_mtime_ns))
    assert bundle.stat().st_mtime_ns == was.st_mtime_ns and bundle.stat().st_ino == was.st_ino
    after = _serials(bundle)
    assert after != before
    assert _serials(new.ca) == after
