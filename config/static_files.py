"""Static files and media (the narration) served by WhiteNoise, both with byte ranges.

WhiteNoise answers a `Range` request itself: 206 with `Content-Range` for a range it can serve, 416
for one past the end of the file, the whole file (200) for a header it cannot read. That is what
lets an audio player show the narration's duration and seek in it. Two additions:

- `Accept-Ranges: bytes` on every file, which WhiteNoise does not send (added by the function
  settings.py gives WhiteNoise as WHITENOISE_ADD_HEADERS_FUNCTION);
- the `Range` header read as RFC 9110 (section 14.1.1) writes it, by ByteRangeFile: a one-byte range
  (`bytes=0-0`, `bytes=-1`) is served, where WhiteNoise 6.12 answers 416 (evansd/whitenoise#711: its
  check `start >= end` treats an inclusive end as exclusive); an empty suffix (`bytes=-0`) is 416,
  where WhiteNoise reads it as `bytes=0-`; positions are ASCII digits only, where WhiteNoise's int()
  also takes signs, underscores, spaces and other scripts' digits (such a header is ignored).

Static files are found once, when the process starts (they only change with a deployment). Media
files are looked up on each request instead, since the narration is generated while the site runs
(`generate_narration`, the tests); WhiteNoise's look-up keeps the path inside MEDIA_ROOT.
"""

import re
from http import HTTPStatus

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from whitenoise.base import WhiteNoise
from whitenoise.middleware import WhiteNoiseMiddleware
from whitenoise.responders import Response, SlicedFile, StaticFile

# One range, `first-last`, `first-` or `-suffix`; anything else (several ranges among them) is ignored.
BYTE_RANGE_RE = re.compile(r"bytes=([0-9]*)-([0-9]*)")


class ByteRangeFile(StaticFile):
    """WhiteNoise's file, with the `Range` header read strictly (the rest is WhiteNoise's own answer)."""

    def get_range_response(self, range_header, base_headers, file_handle):
        """206 with the range, 416 for a range the file cannot satisfy; a ValueError makes WhiteNoise
        answer the whole file (200), as RFC 9110 allows for a header the server does not read."""
        size = next(int(value) for name, value in base_headers if name == "Content-Length")
        match = BYTE_RANGE_RE.fullmatch(range_header.strip())
        if match is None or match.groups() == ("", ""):
            raise ValueError(range_header)
        first, last = match.groups()
        if first:
            start, end = int(first), min(int(last), size - 1) if last else size - 1
            if last and int(last) < start:
                raise ValueError(range_header)  # RFC 9110: an invalid range, which a server may ignore
        else:
            start, end = max(size - int(last), 0), size - 1
        if start >= size or not (first or int(last)):  # past the end, or an empty suffix ("-0")
            return self.get_range_not_satisfiable_response(file_handle, size)
        headers = [item for item in base_headers if item[0] != "Content-Length"]
        headers += [("Content-Range", f"bytes {start}-{end}/{size}"), ("Content-Length", str(end - start + 1))]
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
            mimetypes={".epub": "application/epub+zip"},  # the course's books (course/book.py)
        )

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(self.media_prefix):
            media_file = self.media.find_file(request.path_info)
            if media_file is not None:
                return self.serve(media_file, request)
        return super().__call__(request)
