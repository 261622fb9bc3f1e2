# Dates as in config/formats/en/formats.py: "7 दिसंबर 2026". E is Django's other set of month names:
# its Hindi F misspells some ("दिसमबर") and its N adds stray full stops ("सितम्बर.").
DATE_FORMAT = "j E Y"
SHORT_DATE_FORMAT = DATE_FORMAT
DATETIME_FORMAT = "j E Y, H:i T"
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
