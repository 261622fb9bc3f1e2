"""Static files and media (the narration) served by WhiteNoise, both with byte ranges.

WhiteNoise answers a `Range` request itself: 206 with `Content-Range` for a range it can serve, 416
for one past the end of the file, the whole file (200) for a header it cannot read. That is what
lets an audio player show the narration's duration and seek in it. Two additions:

- `Accept-Ranges: bytes` on every file, which WhiteNoise does not send (added by the function
  settings.py gives WhiteNoise as WHITENOISE_ADD_HEADERS_FUNCTION);
- a one-byte range (`bytes=0-0`, `bytes=-1`) is served, where WhiteNoise 6.12 answers 416
  (evansd/whitenoise#711: its check `start >= end` treats an inclusive end as exclusive).

Static files are found once, when the process starts (they only change with a deployment). Media
files are looked up on each request instead, since the narration is generated while the site runs
(`generate_narration`, the tests); WhiteNoise's look-up keeps the path inside MEDIA_ROOT.
"""

from http import HTTPStatus

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from whitenoise.base import WhiteNoise
from whitenoise.middleware import WhiteNoiseMiddleware
from whitenoise.responders import Response, SlicedFile, StaticFile


class ByteRangeFile(StaticFile):
    """WhiteNoise's file, serving a one-byte range too (the rest is WhiteNoise's own answer)."""

    def get_range_response(self, range_header, base_headers, file_handle):
        size = next(int(value) for name, value in base_headers if name == "Content-Length")
        start, end = self.get_byte_range(range_header, size)
        if start != end or start >= size:
            return super().get_range_response(range_header, base_headers, file_handle)
        headers = [item for item in base_headers if item[0] != "Content-Length"]
        headers += [("Content-Range", f"bytes {start}-{end}/{size}"), ("Content-Length", "1")]
        body = SlicedFile(file_handle, start, end) if file_handle is not None else None
        return Response(HTTPStatus.PARTIAL_CONTENT, headers, body)


class _OneByteRanges:
    """Makes each file WhiteNoise finds a ByteRangeFile (a subclass that adds no state)."""

    def get_static_file(self, path, url, stat_cache=None):
        static_file = super().get_static_file(path, url, stat_cache=stat_cache)
        static_file.__class__ = ByteRangeFile
        return static_file


class MediaFiles(_OneByteRanges, WhiteNoise):
    """MEDIA_ROOT under MEDIA_URL, looked up on each request (autorefresh)."""


class StaticAndMediaMiddleware(_OneByteRanges, WhiteNoiseMiddleware):
    """WhiteNoiseMiddleware for STATIC_URL, and MediaFiles for MEDIA_URL; anything else (or a media
    path with no file) goes on to the site, which answers 404 for it."""

    def __init__(self, get_response=None, settings=settings) -> None:
        super().__init__(get_response, settings)
        self.media_prefix = settings.MEDIA_URL
        self.media = MediaFiles(
            None,
            root=settings.MEDIA_ROOT,
            prefix=settings.MEDIA_URL,
            autorefresh=True,
            max_age=self.max_age,
            allow_all_origins=self.allow_all_origins,
            add_headers_function=self.add_headers_function,
        )

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(self.media_prefix):
            media_file = self.media.find_file(request.path_info)
            if media_file is not None:
                return self.serve(media_file, request)
        return super().__call__(request)
