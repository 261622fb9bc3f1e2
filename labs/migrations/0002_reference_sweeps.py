import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("labs", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="labrun",
            name="reference",
            field=models.BooleanField(default=False),
        ),
        migrations.AlterField(
            model_name="labrun",
            name="user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="lab_runs",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddIndex(
            model_name="labrun",
            index=models.Index(fields=["reference", "preset", "created_at"], name="labs_labrun_referen_7f2996_idx"),
        ),
    ]
