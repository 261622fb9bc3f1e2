"""Every credential the site issues, checked over HTTP against the running site by an independent Open
Badges 3.0 verifier (ob_verifier.py): fresh, name-corrected and revoked ones, signed with RS256 and with
EdDSA, across key rotations; the documents that lead a verifier from a credential to the issuer's keys;
and the hashed identifier."""

import io
import json
import re
import warnings
from pathlib import Path
from urllib.parse import urlsplit

import jwt as pyjwt
import pytest
from django.core.management import call_command
from joserfc import jws
from joserfc.errors import SecurityWarning
from joserfc.jwk import OKPKey
from pypdf import PdfReader

from tests.certificates.ob_verifier import (
    PROFILE_SCHEMA,
    NotVerified,
    Verifier,
    http_get,
    recipient_matches,
    schema_errors,
    unverified_header,
    unverified_payload,
)

README = Path(__file__).resolve().parents[2] / "README.md"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site(settings, live_server, signing_key_dir) -> str:
    """The site's address, as the credentials name it: the live server's."""
    settings.SITE_URL = live_server.url
    return live_server.url


@pytest.fixture
def issuer(site) -> str:
    return site + "/"


@pytest.fixture
def verifier() -> Verifier:
    return Verifier()


@pytest.fixture
def asha(site, fast_password_hashing):
    from tests.factories import account

    return account()


@pytest.fixture
def issue(asha):
    """Issues a certificate for a passed final exam, as the result page's claim does."""
    from certificates.services import certificate_issue
    from quizzes.models import Quiz
    from tests.factories import passed_exam_attempt

    exam, _created = Quiz.objects.get_or_create(slug="final-exam", defaults={"is_exam": True, "title": {"en": "Exam"}})

    def issue_one():
        return certificate_issue(attempt=passed_exam_attempt(asha, exam), user=asha)

    return issue_one


def bitstring_entry(verifier: Verifier, site: str, certificate) -> dict:
    """The W3C entry, from the certificate's public record (OB 3.0 lets a credential carry one status)."""
    record = verifier.fetch_json(f"{site}/api/certificates/{certificate.display_id}")
    return record["status_list_entry"]


def statuses(verifier: Verifier, site: str, issuer: str, certificate, claims: dict) -> tuple[bool, bool]:
    """(revoked by the 1EdTech list, revoked by the bitstring), each read as its spec says."""
    entry = bitstring_entry(verifier, site, certificate)
    return verifier.revoked_by_1edtech_list(claims), verifier.revoked_by_bitstring(entry, issuer)


@pytest.mark.parametrize("algorithm", ["RS256", "EdDSA"])
def test_fresh_corrected_and_revoked_credentials_pass_ob30_verification(
    settings, site, issuer, verifier, issue, asha, algorithm
):
    from certificates.services import certificate_correct_name, certificate_revoke

    settings.CERT_SIGNING_ALGORITHM = algorithm
    fresh = issue()
    claims = verifier.verify(fresh.credential, issuer)
    header = unverified_header(fresh.credential)
    assert header == {"alg": algorithm, "typ": "JWT", "kid": fresh.kid}
    assert fresh.kid.startswith(f"{site}/api/certificates/keys/")
    assert claims["sub"] == claims["credentialSubject"]["id"] and claims["sub"].startswith("urn:uuid:")
    assert claims["jti"] == claims["id"] and claims["id"].startswith("urn:uuid:") and claims["id"] != claims["sub"]
    assert claims["evidence"][0]["id"] == f"{site}/en/certificates/{fresh.display_id}/"
    assert recipient_matches(claims, "Asha Verma") and not recipient_matches(claims, "Someone Else")
    assert verifier.verify_with_issuer_keys(fresh.credential, issuer) == claims  # the metadata's way to the key
    assert statuses(verifier, site, issuer, fresh, claims) == (False, False)

    corrected = certificate_correct_name(certificate=fresh, user=asha, name="Asha V. Verma")
    corrected_claims = verifier.verify(corrected.credential, issuer)
    assert recipient_matches(corrected_claims, "Asha V. Verma")
    assert corrected_claims["sub"] != claims["sub"]  # one subject id per certificate: the two do not link
    assert statuses(verifier, site, issuer, corrected, corrected_claims) == (False, False)
    assert statuses(verifier, site, issuer, fresh, claims) == (True, True)  # superseded counts no more

    certificate_revoke(certificate=corrected, reason="Exam taken by someone else.")
    assert verifier.verify(corrected.credential, issuer) == corrected_claims  # the signature still holds
    assert statuses(verifier, site, issuer, corrected, corrected_claims) == (True, True)


def test_a_mismatch_between_a_claim_and_its_property_is_refused(site, issuer, verifier, issue):
    """The verifier's claim checks can fail: a credential whose sub differs from credentialSubject.id,
    signed with the site's own key, is refused."""
    from certificates import credentials, keys

    certificate = issue()
    payload = credentials.credential_payload(certificate)
    payload["sub"] = "urn:uuid:00000000-0000-4000-8000-000000000000"
    _kid, forged = keys.sign(payload, "JWT")
    with pytest.raises(NotVerified, match="sub"):
        verifier.verify(forged, issuer)


def test_rotations_and_a_change_of_algorithm_keep_every_credential_verifiable(
    settings, site, issuer, verifier, issue, asha
):
    from certificates.services import certificate_correct_name, certificate_revoke

    first = issue()  # RS256, the default
    call_command("rotate_signing_key")
    certificate_revoke(certificate=first, reason="Issued by mistake.")
    second = issue()  # the rotated RS256 key
    settings.CERT_SIGNING_ALGORITHM = "EdDSA"
    third = certificate_correct_name(certificate=second, user=asha, name="Asha V. Verma")  # a new Ed25519 key
    kids = [first.kid, second.kid, third.kid]
    assert len(set(kids)) == 3
    assert [unverified_header(c.credential)["alg"] for c in (first, second, third)] == ["RS256", "RS256", "EdDSA"]
    published = verifier.issuer_jwks(issuer)["keys"]
    assert [key["kid"] for key in published] == [third.kid, second.kid, first.kid]  # active first
    for certificate in (first, second, third):
        claims = verifier.verify(certificate.credential, issuer)
        assert verifier.verify_with_issuer_keys(certificate.credential, issuer) == claims
    assert verifier.revoked_by_1edtech_list(unverified_payload(first.credential))
    assert not verifier.revoked_by_1edtech_list(unverified_payload(third.credential))


def test_the_jwt_vc_issuer_metadata_and_the_issuer_profile_lead_to_the_keys(site, issuer, verifier, issue):
    certificate = issue()
    metadata = verifier.issuer_metadata(issuer)
    assert metadata == {"issuer": issuer, "jwks_uri": f"{site}/.well-known/jwks.json"}
    profile = verifier.fetch_json(f"{site}/api/certificates/issuer")
    assert schema_errors(profile, PROFILE_SCHEMA) == []
    assert profile["id"] == issuer == unverified_payload(certificate.credential)["issuer"]["id"]
    (method,) = profile["verificationMethod"]
    assert method["id"] == certificate.kid and profile["assertionMethod"] == [certificate.kid]
    assert method["controller"] == issuer and method["type"] == "JsonWebKey"
    assert method["publicKeyJwk"] == verifier.dereference_kid(certificate.kid, issuer)
    assert method["publicKeyJwk"] == verifier.issuer_jwks(issuer)["keys"][0]
    assert set(method["publicKeyJwk"]) == {"kty", "n", "e", "kid", "use", "alg"}  # no private member


def test_a_kid_nobody_published_and_a_foreign_kid_are_refused(site, issuer, verifier, issue):
    certificate = issue()
    assert verifier.get(f"{site}/api/certificates/keys/not-a-key", "application/json")[0] == 404
    _header, payload, signature = certificate.credential.split(".")
    foreign = pyjwt.utils.base64url_encode(
        pyjwt.utils.force_bytes('{"alg":"RS256","typ":"JWT","kid":"urn:example:key"}')
    ).decode()
    with pytest.raises(NotVerified, match="not a URL"):
        verifier.verify(f"{foreign}.{payload}.{signature}", issuer)


def test_a_hashed_identifier_keeps_the_name_out_of_the_credential(settings, site, issuer, verifier, issue, client):
    settings.CERT_IDENTIFIER_HASHED = True
    certificate = issue()
    claims = verifier.verify(certificate.credential, issuer)
    (identifier,) = claims["credentialSubject"]["identifier"]
    assert identifier["hashed"] is True and identifier["identityType"] == "name"
    assert identifier["identityHash"].startswith("sha256$") and len(identifier["salt"]) == 32
    assert "Asha" not in pyjwt.utils.base64url_decode(certificate.credential.split(".")[1]).decode()
    assert recipient_matches(claims, "Asha Verma") and not recipient_matches(claims, "Asha Varma")
    page = client.get(f"/en/certificates/{certificate.display_id}/")
    assert "Asha Verma" in page.text  # the public page still shows the name the learner chose
    pdf = PdfReader(io.BytesIO(client.get(f"/en/certificates/{certificate.display_id}/certificate.pdf").content))
    assert "Asha Verma" in "".join(sheet.extract_text() for sheet in pdf.pages)


# Forged keys ------------------------------------------------------------------------------------


def forged_with_own_key(credential: str, kid: str) -> tuple[str, dict]:
    """(token, public JWK): the site's credential, its claims untouched (iss included), signed again
    with a key of the forger's own that `kid` names."""
    stranger = OKPKey.generate_key("Ed25519", private=True)
    jwk = {**stranger.as_dict(private=False), "kid": kid, "alg": "EdDSA", "use": "sig"}
    payload = json.dumps(unverified_payload(credential)).encode()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SecurityWarning)
        token = jws.serialize_compact(
            {"alg": "EdDSA", "typ": "JWT", "kid": kid}, payload, stranger, algorithms=["EdDSA"]
        )
    return token, jwk


def forger_kids(site: str) -> list[str]:
    """Addresses of a forger's key: another host, the site's own name as user info before the forger's
    host (a check that the kid starts with the site's address lets it through), the site's host on
    another port, and the site's host and port over the other scheme."""
    parts = urlsplit(site)
    path = "/api/certificates/keys/forged"
    return [
        f"https://attacker.example{path}",
        f"{site}@attacker.example{path}",
        f"{parts.scheme}://{parts.hostname}:{parts.port + 1}{path}",
        f"https://{parts.netloc}{path}",
    ]


def serving_the_forgers_key(site: str, jwk: dict):
    """GETs as the network answers them, the forger's server answering with the forger's JWK
    everywhere but at the site's own scheme, host and port."""
    own = urlsplit(site)

    def get(url: str, accept: str) -> tuple[int, bytes]:
        parts = urlsplit(url)
        if (parts.scheme, parts.hostname, parts.port, parts.username) == (own.scheme, own.hostname, own.port, None):
            return http_get(url, accept)
        return 200, json.dumps(jwk).encode()

    return get


def test_a_credential_signed_with_a_key_the_issuer_never_published_is_refused(site, issuer, issue):
    """OB 3.0 dereferences the kid; a verifier that takes whatever key that URL serves accepts anyone's
    signature over the issuer's name. The key must be one the issuer's own JWK Set lists."""
    certificate = issue()
    for kid in forger_kids(site):
        forged, jwk = forged_with_own_key(certificate.credential, kid)
        verifier = Verifier(serving_the_forgers_key(site, jwk))
        assert verifier.fetch_json(kid) == jwk  # the forger's server answers at the kid
        with pytest.raises(NotVerified, match="issuer"):
            verifier.verify(forged, issuer)
        with pytest.raises(NotVerified, match="no published key"):
            verifier.verify_with_issuer_keys(forged, issuer)
    assert Verifier(serving_the_forgers_key(site, {})).verify(certificate.credential, issuer)["iss"] == issuer


def test_a_kid_on_the_site_that_the_jwks_does_not_list_is_refused(site, issuer, issue):
    """The issuer's origin is not enough: the key must be the one the issuer's JWK Set lists."""
    certificate = issue()
    kid = f"{site}/api/certificates/keys/forged"  # answered by the site (404), never by the forger
    forged, _jwk = forged_with_own_key(certificate.credential, kid)
    with pytest.raises(NotVerified):
        Verifier().verify(forged, issuer)


def readme_pyjwt_recipe(site: str, certificate_id: str) -> list[str]:
    """The README's "With PyJWT" code blocks, pointed at the running site and one of its certificates."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("**With PyJWT**") : text.index("### API")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    return [
        code.replace('"https://course.example.org"', repr(site)).replace(
            "ABCD-EFGH-IJKL-MNOP-QRST-UVWX-YZ23-4567", certificate_id
        )
        for code in blocks
    ]


def test_the_readme_pyjwt_recipe_verifies_real_credentials_and_refuses_forged_keys(site, issuer, issue, capsys):
    """The recipe as the README prints it, run as a reader would: both blocks, then its `verified`
    given the forgeries."""
    from certificates.services import certificate_revoke

    certificate = issue()
    names: dict = {}
    for code in readme_pyjwt_recipe(site, certificate.display_id):
        exec(code, names)  # the README's own code
    assert capsys.readouterr().out.split() == ["Asha", "Verma", "valid", "valid"]
    for kid in forger_kids(site):
        forged, _jwk = forged_with_own_key(certificate.credential, kid)
        with pytest.raises(pyjwt.PyJWTError):
            names["verified"](forged)
    certificate_revoke(certificate=certificate, reason="Exam taken by someone else.")
    for code in readme_pyjwt_recipe(site, certificate.display_id):
        exec(code, names)
    assert capsys.readouterr().out.split() == ["Asha", "Verma", "withdrawn", "withdrawn"]
