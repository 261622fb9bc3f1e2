from django.db import migrations


class Migration(migrations.Migration):
    """The certificate model moves to the certificates app: its table is renamed to the name that app
    gives it, rows and foreign keys untouched, and quizzes forgets the model (certificates 0001 takes
    it over without touching the database)."""

    dependencies = [
        ("quizzes", "0004_question_spot_bug"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.AlterModelTable(name="certificate", table="certificates_certificate")],
            state_operations=[migrations.DeleteModel(name="certificate")],
        ),
    ]
