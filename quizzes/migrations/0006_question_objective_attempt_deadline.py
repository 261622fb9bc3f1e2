from django.db import migrations, models


def resync_every_quiz(apps, schema_editor):
    """The next `sync_quizzes` rewrites every quiz (it skips a file whose hash it has seen), so the
    questions already stored get their objective."""
    apps.get_model("quizzes", "Quiz").objects.update(source_hash="")


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0005_certificate_moves_to_certificates"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="objective",
            field=models.CharField(blank=True, max_length=160),
        ),
        migrations.AddField(
            model_name="attempt",
            name="deadline",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(resync_every_quiz, migrations.RunPython.noop),
    ]
