import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import certificates.models


def content_type_moves(apps, schema_editor) -> None:
    """Permissions on certificates (e.g. a staff member allowed to revoke) follow the model."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label="certificates", model="certificate").exists():
        ContentType.objects.filter(app_label="quizzes", model="certificate").update(app_label="certificates")


def content_type_moves_back(apps, schema_editor) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label="quizzes", model="certificate").exists():
        ContentType.objects.filter(app_label="certificates", model="certificate").update(app_label="quizzes")


class Migration(migrations.Migration):
    """Takes over the certificate model from quizzes (quizzes 0005 renamed its table to this app's
    name for it): only the migration state changes here, every row stays as it was."""

    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("quizzes", "0005_certificate_moves_to_certificates"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Certificate",
                    fields=[
                        (
                            "id",
                            models.CharField(
                                default=certificates.models.new_certificate_id,
                                editable=False,
                                max_length=32,
                                primary_key=True,
                                serialize=False,
                            ),
                        ),
                        ("name", models.CharField(max_length=120, verbose_name="name as issued")),
                        (
                            "language",
                            models.CharField(
                                choices=[("en", "English"), ("hi", "Hindi"), ("fr", "French")], max_length=8
                            ),
                        ),
                        ("score_percent", models.PositiveSmallIntegerField()),
                        ("score_band", models.CharField(max_length=20)),
                        ("issued_at", models.DateTimeField()),
                        ("kid", models.CharField(max_length=100)),
                        ("credential", models.TextField()),
                        ("revoked_at", models.DateTimeField(blank=True, null=True)),
                        ("revocation_reason", models.TextField(blank=True)),
                        ("is_name_correction", models.BooleanField(default=False)),
                        (
                            "status_slot",
                            models.PositiveIntegerField(blank=True, editable=False, null=True, unique=True),
                        ),
                        (
                            "attempt",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="certificates",
                                to="quizzes.attempt",
                            ),
                        ),
                        (
                            "superseded_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="supersedes",
                                to="certificates.certificate",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="certificates",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "certificate",
                        "verbose_name_plural": "certificates",
                        "ordering": ["-issued_at"],
                    },
                ),
            ],
        ),
        migrations.RunPython(content_type_moves, content_type_moves_back, elidable=True),
    ]
