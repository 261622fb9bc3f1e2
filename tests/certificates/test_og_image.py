"""A shared link to a certificate page shows a picture of the certificate: og:image and its companions
on the page, and the PNG drawn on the server in the page's language, kept in the cache."""

import io
import re

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import translation
from PIL import Image, ImageChops

from certificates import og_image
from certificates.pdf_fonts import CORE
from certificates.services import certificate_revoke

pytestmark = pytest.mark.django_db


def meta(text: str, name: str) -> str:
    found = re.search(rf'<meta (?:property|name)="{re.escape(name)}" content="([^"]*)"', text)
    assert found, f"no {name} meta tag"
    return found.group(1)


def picture(certificate, language: str = "en"):
    with translation.override(language):
        url = reverse("certificates:og_image", args=[certificate.display_id])
    response = Client().get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    return response.content


def test_the_page_names_its_picture_title_and_description(certificate):
    with translation.override("fr"):
        url = reverse("certificates:verify", args=[certificate.display_id])
    text = Client().get(url).text
    image_url = meta(text, "og:image")
    assert image_url == settings.SITE_URL + f"/fr/certificates/{certificate.display_id}/og.png"
    assert (meta(text, "og:image:width"), meta(text, "og:image:height")) == ("1200", "630")
    assert meta(text, "og:image:type") == "image/png" and meta(text, "twitter:card") == "summary_large_image"
    assert "Asha Verma" in meta(text, "og:title") and "Asha Verma" in meta(text, "og:image:alt")
    assert "Asha Verma" in meta(text, "og:description") and meta(text, "og:url").startswith(settings.SITE_URL)


def test_the_picture_is_a_png_of_the_size_the_page_announces(certificate):
    image = Image.open(io.BytesIO(picture(certificate)))
    assert image.format == "PNG" and image.size == (1200, 630)
    assert len(image.convert("L").getcolors(256)) > 10  # text was drawn, not a blank card


def test_the_picture_follows_the_page_language(certificate):
    english, hindi = Image.open(io.BytesIO(picture(certificate))), Image.open(io.BytesIO(picture(certificate, "hi")))
    assert ImageChops.difference(english.convert("RGB"), hindi.convert("RGB")).getbbox() is not None


def test_the_picture_is_drawn_once_and_kept_in_the_cache(certificate):
    with translation.override("en"):
        key = og_image.CACHE_KEY.format(id=certificate.id, status="valid", language="en")
    assert cache.get(key) is None
    body = picture(certificate)
    assert cache.get(key) == body  # the cache framework (Redis), so every process serves it
    assert picture(certificate) == body


def test_a_revoked_certificate_gets_a_picture_that_says_so(certificate):
    valid = picture(certificate)
    certificate_revoke(certificate=certificate, reason="Exam taken by someone else")
    revoked = picture(certificate)
    assert revoked != valid
    with translation.override("en"):
        texts = og_image.card_texts(certificate)
    assert texts["status"] == "This certificate was revoked."


def test_a_name_in_devanagari_is_drawn_in_the_devanagari_face():
    runs = og_image.text_runs("आशा वर्मा")
    assert runs == [("आशा वर्मा", CORE[1])]  # the vowel signs and virama stay with their letters
    mixed = og_image.text_runs("Asha आशा")
    assert [face.family for _run, face in mixed] == ["latin", "deva"]


def test_a_long_name_is_wrapped_inside_the_card():
    fonts = og_image.Fonts()
    name = "Maximilian Alexander Wolfeschlegelsteinhausenbergerdorff von Habsburg-Lothringen und Sachsen"
    size, lines = og_image.fitted_lines(fonts, name, 72, 30, True, 2)
    assert 30 <= size < 72 and len(lines) == 2
    assert " ".join(lines) == name  # nothing cut off
    width = og_image.WIDTH - 2 * og_image.PADDING
    assert all(og_image.line_width(fonts, og_image.text_runs(line), size, True) <= width for line in lines)


def test_a_name_too_long_for_two_lines_at_the_smallest_size_is_shrunk_not_cut():
    fonts = og_image.Fonts()
    name = "山田太郎" * 30  # 120 wide characters, no space to break at
    size, lines = og_image.fitted_lines(fonts, name, 72, 30, True, 2)
    assert size < 30 and len(lines) == 2 and "".join(lines) == name


def test_a_never_issued_id_has_no_picture(db):
    url = reverse("certificates:og_image", args=["ABCD-EFGH-IJKL-MNOP-QRST-UVWX-YZ23-4567"])
    assert Client().get(url).status_code == 404
    assert Client().get(reverse("certificates:og_image", args=["nonsense"])).status_code == 404
