"""Whether the narration is being recorded right now, as every process of the site sees it.

`generate_narration` marks it in the cache while it records (and the guide pages say so where the
audio is still missing); the mark lapses by itself if the program is killed, since each recording
renews it. Kept apart from services.py so the page cache can count it as content.
"""

import logging

from django.core.cache import cache
from redis import RedisError

logger = logging.getLogger(__name__)

RECORDING_KEY = "course:narration-recording"
RECORDING_TIMEOUT = 15 * 60  # seconds; one recording takes well under this on two busy cores


def recording() -> bool:
    try:
        return bool(cache.get(RECORDING_KEY))
    except RedisError:
        return False


def mark_recording(active: bool) -> None:
    try:
        if active:
            cache.set(RECORDING_KEY, True, RECORDING_TIMEOUT)
        else:
            cache.delete(RECORDING_KEY)
    except RedisError as exc:  # the pages then offer the browser's voice instead of "being recorded"
        logger.warning("the narration's recording mark could not be written: %s", exc)
