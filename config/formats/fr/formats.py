# French groups digits with a narrow no-break space, "10 000" (Django's own French format uses the
# wider U+00A0); the course's French text does the same (course/typography.py).
THOUSAND_SEPARATOR = "\u202f"

# Dates as in config/formats/en/formats.py, with the usual French abbreviations: "7 déc. 2026",
# "7 mars 2026".
DATE_FORMAT = "j N Y"
SHORT_DATE_FORMAT = DATE_FORMAT
DATETIME_FORMAT = "j N Y, H:i T"
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
