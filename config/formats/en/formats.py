# Dates: day, month name, year in every language ("7 Dec 2026"), never in numbers only, which read
# as 7 December in one country and 12 July in another; the short forms are the same. Times are UTC
# (TIME_ZONE), and say so.
DATE_FORMAT = "j M Y"
SHORT_DATE_FORMAT = DATE_FORMAT
DATETIME_FORMAT = "j M Y, H:i T"
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
