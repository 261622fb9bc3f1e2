"""Certificate status as a W3C Bitstring Status List v1.0 (https://www.w3.org/TR/vc-bitstring-status-list/).

Every certificate issued since status lists exist holds one bit, its `status_slot`: list
`slot // LIST_SIZE + 1`, index `slot % LIST_SIZE`. The bit is 1 when the certificate is revoked or
superseded by a corrected one (one purpose, "revocation": either way it no longer certifies
anything). The lists are built from the certificates' rows on each request, so revoking or
correcting a certificate flips its bit at once and a list can never drift from the records.

Slots are drawn at random (the spec's herd privacy: neighbouring bits say nothing about issue
order) and a list takes new certificates only until it is half full, so a draw finds a free bit at
the first or second try.

The same slot puts the certificate in 1EdTech revocation list number `slot // LIST_SIZE + 1`
(certificates/revocation_list.py), the status method Open Badges 3.0 verifiers read.
"""

import base64
import gzip
import secrets

from django.conf import settings
from django.db.models import Q
from django.urls import reverse

from .models import Certificate

LIST_SIZE = 131_072  # bits per list: the spec's minimum (16 KiB), for herd privacy
FILL_LIMIT = LIST_SIZE // 2  # new certificates go to the next list once a list holds this many
PURPOSE = "revocation"  # revoked and superseded alike; see the module docstring
MAX_AGE = 300  # seconds a verifier may cache a list (HTTP max-age and the list's `ttl`)
LIST_MEDIA_TYPE = "application/vc+jwt"


def list_url(number: int) -> str:
    return settings.SITE_URL + reverse("api:certificate_status_list", args=[number])


def slot_draw() -> int:
    """A free slot in the list now taking new certificates."""
    taken = Certificate.objects.filter(status_slot__isnull=False)
    current = taken.count() // FILL_LIMIT
    while True:
        slot = current * LIST_SIZE + secrets.randbelow(LIST_SIZE)
        if not taken.filter(status_slot=slot).exists():
            return slot


def slot_taken(slot: int) -> bool:
    return Certificate.objects.filter(status_slot=slot).exists()


def entry(certificate: Certificate) -> dict:
    """The credential's `credentialStatus` (a BitstringStatusListEntry)."""
    index = certificate.status_slot % LIST_SIZE
    url = list_url(list_number(certificate))
    return {
        "id": f"{url}#{index}",  # OB 3.0's schema requires an id; the spec's examples use list#index
        "type": "BitstringStatusListEntry",
        "statusPurpose": PURPOSE,
        "statusListIndex": str(index),
        "statusListCredential": url,
    }


def list_count() -> int:
    """How many lists are served: at least one, and every list holding a slot."""
    last = Certificate.objects.filter(status_slot__isnull=False).order_by("-status_slot").first()
    return 1 if last is None else last.status_slot // LIST_SIZE + 1


def list_number(certificate: Certificate) -> int:
    return certificate.status_slot // LIST_SIZE + 1


def withdrawn(number: int):
    """The certificates of list `number` (from 1) that no longer count: revoked or superseded."""
    start = (number - 1) * LIST_SIZE
    return Certificate.objects.filter(status_slot__gte=start, status_slot__lt=start + LIST_SIZE).filter(
        Q(revoked_at__isnull=False) | Q(superseded_by__isnull=False)
    )


def bitstring(number: int) -> bytes:
    """List `number` (from 1): bit i, counted from the most significant bit of the first byte, is 1
    when the certificate in slot i is revoked or superseded."""
    start = (number - 1) * LIST_SIZE
    bits = bytearray(LIST_SIZE // 8)
    for slot in withdrawn(number).values_list("status_slot", flat=True):
        index = slot - start
        bits[index // 8] |= 0x80 >> (index % 8)
    return bytes(bits)


def encode(bits: bytes) -> str:
    """`encodedList`: multibase base64url (prefix "u", no padding) of the GZIP-compressed bits."""
    compressed = gzip.compress(bits, mtime=0)  # mtime 0: the same bits always encode the same
    return "u" + base64.urlsafe_b64encode(compressed).rstrip(b"=").decode()
