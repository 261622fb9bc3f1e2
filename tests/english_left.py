"""Which texts of a page in Hindi or French are still the English page's (tests/accounts/test_translations.py,
tests/browser/test_signup_languages.py)."""

import re

# The same in every language: the language menu names each language in itself.
EVERYWHERE = {"English", "हिन्दी", "Français"}
# Kept on purpose (content/glossary.yaml: technical words stay in English in Hindi; French uses these words).
KEPT = {"hi": {"Gradient Accumulation", "Labs"}, "fr": {"Guides", "Newsletter"}}
LATIN_LETTER = re.compile("[A-Za-z]")


def english_left(english: list[str], translated: list[str], language: str) -> list[str]:
    """The texts of `translated` that are words (not signs: ·, @) of `english`, the page in English."""
    words = {text for text in english if LATIN_LETTER.search(text)} - EVERYWHERE - KEPT[language]
    return [text for text in translated if text in words]
