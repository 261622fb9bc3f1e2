from django.db import migrations, models


class Migration(migrations.Migration):
    """`kid` now holds the key's URL, the kid in new credentials' headers, which can be longer than 100
    characters. Rows signed before keep their bare RFC 7638 thumbprint, the kid their credentials carry:
    no row changes, and credentials.published_jwks lists those keys under it, so no data migration is
    needed for them to keep verifying."""

    dependencies = [
        ("certificates", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name="certificate",
            name="kid",
            field=models.CharField(max_length=300),
        ),
    ]
