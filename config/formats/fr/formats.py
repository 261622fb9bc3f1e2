# French groups digits with a narrow no-break space, "10 000" (Django's own French format uses the
# wider U+00A0); the course's French text does the same (course/typography.py).
THOUSAND_SEPARATOR = "\u202f"
