"""The signing-key commands bin/setup and operators run."""

from django.core.management import call_command


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
