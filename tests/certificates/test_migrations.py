"""Moving the certificate model from quizzes to certificates keeps every certificate as it was issued.

The migrations are replayed on the test database: back to before the move, certificates written with
the historical models (valid, revoked, superseded and its replacement, one whose learner left), then
forward again. Marked `migrations` (bin/test runs it on PostgreSQL too); it replays only the two apps'
migrations, a few seconds.
"""

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from certificates.models import Certificate

pytestmark = [pytest.mark.migrations, pytest.mark.django_db(transaction=True)]

TABLE = "certificates_certificate"
MOVED_APPS = ("quizzes", "certificates")


def latest() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def before_the_move() -> list[tuple[str, str]]:
    """Every app at its latest migration but quizzes at 0004 and certificates not yet there."""
    return [node for node in latest() if node[0] not in MOVED_APPS] + [("quizzes", "0004_question_spot_bug")]


def migrate(targets: list[tuple[str, str]], unapply_certificates: bool = False):
    """Applies or unapplies migrations up to `targets`; the historical apps of that state."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets + ([("certificates", None)] if unapply_certificates else []))
    executor.loader.build_graph()  # what is applied now
    return executor.loader.project_state(targets).apps


@pytest.fixture
def old_apps():
    """The apps as they were before the move; the database goes back to the latest state afterwards."""
    yield migrate(before_the_move(), unapply_certificates=True)
    migrate(latest())


def credential(name: str) -> str:
    # A compact JWS as issued; the move must keep it byte for byte (the signature covers every byte).
    return f"eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.eyJuYW1lIjoi{name}In0.c2lnbmF0dXJlLW9mLXtuYW1lfQ"


def write_certificates(apps) -> dict[str, dict]:
    """Certificates in every status, written with the historical models; their rows as written."""
    user = apps.get_model("auth", "User").objects.create(username="asha", email="asha@example.com")
    exam = apps.get_model("quizzes", "Quiz").objects.create(slug="final-exam", is_exam=True, title={"en": "Exam"})
    now = timezone.now().replace(microsecond=0)
    attempt = apps.get_model("quizzes", "Attempt").objects.create(
        key="passed-attempt", quiz=exam, user=user, language="hi", question_ids=[1],
        started_at=now - timedelta(hours=1), finished_at=now, correct_count=1, passed=True,
    )  # fmt: skip
    historical = apps.get_model("quizzes", "Certificate")

    def issue(certificate_id: str, slot: int | None, **fields):
        defaults = {
            "user": user, "attempt": attempt, "name": "आशा वर्मा", "language": "hi", "score_percent": 93,
            "score_band": "90–100%", "issued_at": now - timedelta(days=3), "kid": "k1", "status_slot": slot,
            "credential": credential(certificate_id[:6]),
        }  # fmt: skip
        return historical.objects.create(id=certificate_id, **{**defaults, **fields})

    issue("VALIDAAAAAAAAAAAAAAAAAAAAAAAAAAA", 17)
    issue("REVOKEDAAAAAAAAAAAAAAAAAAAAAAAAA", 4242, revoked_at=now, revocation_reason="Exam taken by someone else.")
    replacement = issue("REPLACEMENTAAAAAAAAAAAAAAAAAAAAA", 99, name="Asha V. Verma", is_name_correction=True)
    issue("SUPERSEDEDAAAAAAAAAAAAAAAAAAAAAA", 131_073, superseded_by=replacement)
    issue("LEFTAAAAAAAAAAAAAAAAAAAAAAAAAAAA", None, user=None, attempt=None, name="Old Learner", kid="k0")
    # Unapplying certificates 0001 gave the content type back to quizzes, with its permissions.
    content_types = apps.get_model("contenttypes", "ContentType").objects
    content_type, _created = content_types.get_or_create(app_label="quizzes", model="certificate")
    apps.get_model("auth", "Permission").objects.get_or_create(
        content_type=content_type, codename="change_certificate", defaults={"name": "Can change certificate"}
    )
    return {row["id"]: row for row in historical.objects.values()}


def test_every_certificate_survives_the_move_with_its_status_and_credential(old_apps):
    written = write_certificates(old_apps)

    apps = migrate(latest())

    moved = {row["id"]: row for row in apps.get_model("certificates", "Certificate").objects.values()}
    assert moved == written  # every field: name, kid, credential, slot, dates, reason, links
    statuses = {c.id[:6]: (c.status, c.revocation_reason, c.superseded_by_id) for c in Certificate.objects.all()}
    assert statuses == {
        "VALIDA": ("valid", "", None),
        "REVOKE": ("revoked", "Exam taken by someone else.", None),
        "REPLAC": ("valid", "", None),
        "SUPERS": ("superseded", "", "REPLACEMENTAAAAAAAAAAAAAAAAAAAAA"),
        "LEFTAA": ("valid", "", None),
    }
    valid = Certificate.objects.select_related("attempt__quiz", "user").get(pk="VALIDAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    assert (valid.user.username, valid.attempt.quiz.slug, valid.credential) == (
        "asha",
        "final-exam",
        credential("VALIDA"),
    )
    permission = apps.get_model("auth", "Permission").objects.get(codename="change_certificate")
    assert permission.content_type.app_label == "certificates"  # staff keep their rights on certificates


def test_the_moved_table_keeps_its_foreign_keys_and_unique_slot(old_apps):
    migrate(latest())

    with connection.cursor() as cursor:
        assert TABLE in connection.introspection.table_names(cursor)
        assert "quizzes_certificate" not in connection.introspection.table_names(cursor)
        constraints = connection.introspection.get_constraints(cursor, TABLE).values()
    references = {tuple(c["columns"]): c["foreign_key"] for c in constraints if c["foreign_key"]}
    assert references == {
        ("attempt_id",): ("quizzes_attempt", "id"),
        ("user_id",): ("auth_user", "id"),
        ("superseded_by_id",): (TABLE, "id"),
    }
    assert any(c["unique"] and c["columns"] == ["status_slot"] for c in constraints)
