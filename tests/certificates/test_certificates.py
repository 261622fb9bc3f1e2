import re
from datetime import timedelta

from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.services import profile_for
from certificates.models import Certificate
from certificates.services import certificate_revoke

REVOKED_SAYS = "Your certificate was revoked. Only a final exam passed after its revocation earns a new one."


def verify_url(certificate: Certificate) -> str:
    return reverse("certificates:verify", args=[certificate.display_id])


def test_passing_the_exam_issues_a_certificate_with_an_unguessable_id(learner, certificate, passed_exam):
    assert re.fullmatch(r"[A-Z2-7]{32}", certificate.id)  # 160 random bits
    assert re.fullmatch(r"([A-Z2-7]{4}-){7}[A-Z2-7]{4}", certificate.display_id)
    assert certificate.name == "Asha Verma"
    assert certificate.user == learner and certificate.attempt == passed_exam
    assert (certificate.score_percent, certificate.score_band, certificate.language) == (100, "90–100%", "en")
    assert certificate.status == "valid" and certificate.credential.count(".") == 2


def test_claiming_again_returns_the_same_certificate(learner_client, certificate, passed_exam):
    learner_client.post(reverse("certificates:claim", args=["final-exam", passed_exam.key]))
    assert Certificate.objects.count() == 1


def test_a_failed_exam_earns_no_certificate(learner_client, quizzes, take_quiz):
    attempt = take_quiz(learner_client, "final-exam", correct=5)
    response = learner_client.post(reverse("certificates:claim", args=["final-exam", attempt.key]))
    assert response.status_code == 302
    assert not Certificate.objects.exists()


def test_a_guide_quiz_earns_no_certificate(learner_client, quizzes, take_quiz):
    attempt = take_quiz(learner_client, "demo-guide")
    learner_client.post(reverse("certificates:claim", args=["demo-guide", attempt.key]))
    assert not Certificate.objects.exists()


def test_claiming_needs_an_account(learner_client, quizzes, take_quiz):
    attempt = take_quiz(learner_client, "final-exam")
    response = learner_client.__class__().post(reverse("certificates:claim", args=["final-exam", attempt.key]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Certificate.objects.exists()


def test_claiming_needs_a_full_name(learner, learner_client, passed_exam):
    profile = profile_for(learner)
    profile.full_name = ""
    profile.save()
    response = learner_client.post(reverse("certificates:claim", args=["final-exam", passed_exam.key]))
    assert response["Location"] == reverse("accounts:profile")
    assert not Certificate.objects.exists()


def test_the_verification_page_shows_the_certificate_without_private_data(certificate, learner):
    page = Client().get(verify_url(certificate))
    assert page.status_code == 200
    for fact in (certificate.display_id, "Asha Verma", "Gradient Accumulation Course", "90–100%", "English", "Valid."):
        assert fact in page.text
    assert learner.email not in page.text and learner.username not in page.text.split("<main", 1)[1]
    assert (
        '<meta property="og:title"' in page.text
        and f'content="http://testserver{verify_url(certificate)}"' not in page.text
    )
    # Sharing is the holder's (test_sharing.py): a visitor gets the PDF only.
    assert "linkedin.com/profile/add?startTask=CERTIFICATION_NAME" not in page.text
    assert reverse("certificates:pdf", args=[certificate.display_id]) in page.text


def test_the_verification_page_accepts_the_id_in_any_form(client, certificate):
    response = client.get(reverse("certificates:verify", args=[certificate.id.lower()]))
    assert response.status_code == 301
    assert response["Location"] == verify_url(certificate)


def test_a_revoked_certificate_still_answers_with_the_reason(client, certificate):
    assert certificate_revoke(certificate=certificate, reason="Exam taken by someone else")
    page = client.get(verify_url(certificate))
    assert page.status_code == 200
    assert "Revoked." in page.text and "Exam taken by someone else" in page.text
    assert "Valid." not in page.text
    assert client.get(reverse("certificates:pdf", args=[certificate.display_id])).status_code == 410
    api = client.get(reverse("api:certificate", args=[certificate.display_id])).json()
    assert api["status"] == "revoked" and api["revocation_reason"] == "Exam taken by someone else"


def test_revoking_twice_keeps_the_first_date(certificate):
    certificate_revoke(certificate=certificate, reason="first")
    first = certificate.revoked_at
    assert not certificate_revoke(certificate=certificate, reason="second")
    assert (certificate.revoked_at, certificate.revocation_reason) == (first, "first")


def test_a_revoked_attempt_cannot_be_claimed_again(learner_client, certificate, passed_exam):
    certificate_revoke(certificate=certificate, reason="cheating")
    learner_client.post(reverse("certificates:claim", args=["final-exam", passed_exam.key]))
    assert Certificate.objects.count() == 1


def passed_at(user, when):
    """Another passed final exam of `user`, finished at `when`."""
    from quizzes.models import Attempt
    from tests.factories import passed_exam_attempt

    attempt = passed_exam_attempt(user, Attempt.objects.filter(user=user).first().quiz)
    Attempt.objects.filter(pk=attempt.pk).update(started_at=when - timedelta(minutes=9), finished_at=when)
    return attempt


def claim(client, attempt):
    return client.post(reverse("certificates:claim", args=["final-exam", attempt.key]), follow=True)


def test_a_revocation_stands_until_an_exam_passed_after_it(learner_client, learner, certificate):
    """Staff revoke for a reason that concerns the learner (an exam taken by someone else): a result
    from before the revocation cannot earn the certificate back, only one passed after it."""
    certificate_revoke(certificate=certificate, reason="Exam taken by someone else")
    certificate.refresh_from_db()
    before = passed_at(learner, certificate.revoked_at - timedelta(minutes=1))
    result_page = learner_client.get(reverse("quizzes:result", args=["final-exam", before.key])).text
    assert "Claim your certificate" not in result_page and REVOKED_SAYS in result_page
    refused = claim(learner_client, before)
    assert REVOKED_SAYS in refused.text
    assert list(Certificate.objects.values_list("pk", flat=True)) == [certificate.pk]

    after = passed_at(learner, certificate.revoked_at + timedelta(seconds=1))
    claim(learner_client, after)
    new = Certificate.objects.get(attempt=after)
    assert new.is_valid and new.pk != certificate.pk
    certificate.refresh_from_db()
    assert certificate.status == "revoked"  # the revoked one stays revoked


def test_staff_reissue_a_revoked_certificate_from_the_admin(admin_client, learner_client, learner, certificate):
    """A revocation staff take back (made in error) is a new certificate, with a new ID and signature:
    the revoked one keeps saying revoked, as credentials already checked against it expect."""
    certificate_revoke(certificate=certificate, reason="Issued by mistake")
    url = reverse("admin:certificates_certificate_changelist")
    done = admin_client.post(url, {"action": "reissue", "_selected_action": [certificate.pk]}, follow=True)
    assert "1 certificate issued again" in done.text
    new = Certificate.objects.exclude(pk=certificate.pk).get()
    assert new.is_valid and new.user == learner and new.attempt_id == certificate.attempt_id
    assert (new.score_band, new.language) == (certificate.score_band, certificate.language)
    certificate.refresh_from_db()
    assert certificate.status == "revoked"
    again = admin_client.post(url, {"action": "reissue", "_selected_action": [certificate.pk]}, follow=True)
    assert "already holds a valid certificate" in again.text and Certificate.objects.count() == 2
    valid = admin_client.post(url, {"action": "reissue", "_selected_action": [new.pk]}, follow=True)
    assert "is not revoked" in valid.text and Certificate.objects.count() == 2


def test_the_revoke_command_revokes_with_a_reason(certificate, capsys):
    call_command("revoke_certificate", certificate.display_id.lower(), reason="Issued by mistake")
    certificate.refresh_from_db()
    assert certificate.status == "revoked" and certificate.revocation_reason == "Issued by mistake"
    assert "Revoked" in capsys.readouterr().out


def test_staff_revoke_from_the_admin_with_a_reason(admin_client, certificate):
    url = reverse("admin:certificates_certificate_changelist")
    form = {"action": "revoke", "_selected_action": [certificate.pk]}
    asks = admin_client.post(url, form)
    assert asks.status_code == 200 and "Reason" in asks.text
    certificate.refresh_from_db()
    assert certificate.revoked_at is None
    done = admin_client.post(url, {**form, "reason": "Plagiarised answers"})
    assert done.status_code == 302
    certificate.refresh_from_db()
    assert certificate.revocation_reason == "Plagiarised answers"


def test_correcting_the_name_once_reissues_and_supersedes(learner_client, certificate):
    url = reverse("certificates:correct_name", args=[certificate.display_id])
    response = learner_client.post(url, {"full_name": "Asha  Varma"})
    replacement = Certificate.objects.exclude(pk=certificate.pk).get()
    assert response["Location"] == verify_url(replacement)
    assert replacement.name == "Asha Varma" and replacement.is_valid and replacement.id != certificate.id
    certificate.refresh_from_db()
    assert certificate.status == "superseded" and certificate.superseded_by == replacement
    old_page = learner_client.get(verify_url(certificate))
    assert old_page.status_code == 200 and "Superseded." in old_page.text and replacement.display_id in old_page.text
    again = learner_client.post(
        reverse("certificates:correct_name", args=[replacement.display_id]), {"full_name": "A. Varma"}
    )
    assert again.status_code == 400 and "already used your one name correction" in again.text
    assert Certificate.objects.count() == 2


def test_only_the_owner_can_correct_the_name(certificate, django_user_model):
    other = Client()
    other.force_login(django_user_model.objects.create_user("mallory", password="x-long-Passphrase-42"))
    response = other.post(reverse("certificates:correct_name", args=[certificate.display_id]), {"full_name": "Mallory"})
    assert response.status_code == 404
    assert Certificate.objects.count() == 1


def test_the_certificate_is_issued_in_the_language_of_the_exam(client, learner, quizzes, take_quiz):
    client.force_login(learner)
    with translation.override("hi"):
        attempt = take_quiz(client, "final-exam")
        client.post(reverse("certificates:claim", args=["final-exam", attempt.key]))
        page = client.get(verify_url(Certificate.objects.get()))
    assert Certificate.objects.get().language == "hi"
    assert "हिन्दी" in page.text


def test_the_dashboard_lists_certificates(learner_client, certificate):
    page = learner_client.get(reverse("accounts:dashboard"))
    assert certificate.display_id in page.text
    assert reverse("certificates:pdf", args=[certificate.display_id]) in page.text
