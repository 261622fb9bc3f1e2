"""The signing-key commands bin/setup and operators run, and the setting that picks the algorithm."""

import os
import subprocess
import sys
from pathlib import Path

from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]


def test_ensure_signing_key_is_idempotent_and_keeps_the_key_private(signing_key_dir, capsys):
    call_command("ensure_signing_key")
    call_command("ensure_signing_key")
    output = capsys.readouterr().out
    assert "created" in output and "already present" in output
    (pem,) = signing_key_dir.glob("*.pem")
    assert pem.stat().st_mode & 0o077 == 0
    assert "PRIVATE KEY" in pem.read_text()


def test_rotating_keeps_the_retired_key_published(client, db, signing_key_dir):
    call_command("ensure_signing_key")
    first = client.get("/.well-known/jwks.json").json()["keys"][0]["kid"]
    call_command("rotate_signing_key")
    keys = [k["kid"] for k in client.get("/.well-known/jwks.json").json()["keys"]]
    assert len(keys) == 2 and keys[1] == first and keys[0] != first


def test_a_change_of_algorithm_makes_a_key_of_the_new_kind_and_keeps_the_old(
    client, db, settings, signing_key_dir, capsys
):
    call_command("ensure_signing_key")
    settings.CERT_SIGNING_ALGORITHM = "EdDSA"
    call_command("ensure_signing_key")
    call_command("ensure_signing_key")
    output = capsys.readouterr().out.splitlines()
    assert output[0].startswith("RS256 signing key") and "created" in output[0]
    assert output[1].startswith("EdDSA signing key") and "created" in output[1]
    assert "already present" in output[2]
    assert [key["alg"] for key in client.get("/.well-known/jwks.json").json()["keys"]] == ["EdDSA", "RS256"]
    assert len(list(signing_key_dir.glob("*.pem"))) == 2


def test_processes_signing_at_once_on_a_fresh_machine_make_one_key(db, signing_key_dir):
    from concurrent.futures import ThreadPoolExecutor

    from certificates.keys import ensure_signing_key

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: ensure_signing_key(), range(4)))
    assert len({thumbprint for thumbprint, _created in results}) == 1
    assert sum(created for _thumbprint, created in results) == 1
    assert len(list(signing_key_dir.glob("*.pem"))) == 1


def test_an_unknown_signing_algorithm_stops_the_site_with_a_clear_message(tmp_path):
    env = {**os.environ, "STATE_DIR": str(tmp_path), "CERT_SIGNING_ALGORITHM": "HS256"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "CERT_SIGNING_ALGORITHM must be RS256 or EdDSA, got 'HS256'" in result.stderr
