from django.db.models.signals import post_delete
from django.dispatch import receiver

from course.page_cache import forget_page

from .models import Certificate


@receiver(post_delete, sender=Certificate, dispatch_uid="certificates.forget_certificate_page")
def forget_deleted_certificate_page(sender, instance: Certificate, **kwargs) -> None:
    """A deleted certificate (its learner closed the account) must not live on in the page cache."""
    forget_page("certificates:verify", instance.display_id)
