"""Narration audio: espeak-ng speaks the text, opusenc stores it as Ogg/Opus.

Two recordings per guide page: a spoken summary (1.5 to 3 minutes, written for listening in
`content/guides/<slug>/summary.<lang>.txt`) and the full page read section by section, one file
with a chapter per h2 section. Generated offline by `manage.py generate_narration`; a file is
rebuilt only when its text changes. No Django import: the content loader uses the length rules.
"""

import hashlib
import shutil
import subprocess
import tempfile
import wave
from pathlib import Path

# espeak-ng's own voices. No registry ships an offline neural voice for Hindi, French and English
# with its weights inside the package, and Debian's MBROLA voices are not in main (see README).
VOICES = {"en": "en-us", "hi": "hi", "fr": "fr-fr"}
WORDS_PER_MINUTE = {"en": 165, "hi": 150, "fr": 160}
SUMMARY_SECONDS = (90, 180)  # a spoken summary lasts 1.5 to 3 minutes
OPUS_RATE = 48_000  # Ogg/Opus granule positions count 48 kHz samples whatever the input rate


class NarrationUnavailable(RuntimeError):
    """espeak-ng or opusenc is not installed (the set-up installs both from Debian)."""


def tools_available() -> bool:
    return bool(shutil.which("espeak-ng") and shutil.which("opusenc"))


def count_words(text: str) -> int:
    """Tokens holding a letter or digit (Devanagari vowel signs are not `\\w`, so no regex)."""
    return sum(1 for token in text.split() if any(ch.isalnum() for ch in token))


def spoken_seconds(text: str, language: str) -> float:
    """How long the voice takes to say `text` at the rate it is given (`-s`, words per minute)."""
    return count_words(text) * 60 / WORDS_PER_MINUTE[language]


def narration_filename(slug: str, language: str, kind: str, parts: list[str]) -> str:
    """`kind` is 'summary' or 'full'; the name changes whenever the voice or any part changes."""
    digest = hashlib.sha256("\n\x1e".join([VOICES[language], *parts]).encode()).hexdigest()[:12]
    return f"{slug}.{language}.{kind}.{digest}.ogg"


def wav_seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as wav:
        return wav.getnframes() / float(wav.getframerate())


def ogg_seconds(path: Path) -> float:
    """Duration of an Ogg/Opus file: the last page's granule position, less the pre-skip."""
    data = path.read_bytes()
    last = data.rfind(b"OggS")
    granule = int.from_bytes(data[last + 6 : last + 14], "little")
    head = data.find(b"OpusHead")
    pre_skip = int.from_bytes(data[head + 10 : head + 12], "little") if head >= 0 else 0
    return max(0, granule - pre_skip) / OPUS_RATE


def synthesize(text: str, language: str, target: Path) -> float:
    """Writes `target` (Ogg/Opus) and returns its duration in seconds."""
    return synthesize_chapters([text], language, target)[-1]


def synthesize_chapters(texts: list[str], language: str, target: Path) -> list[float]:
    """Speaks each text in turn into one Ogg/Opus file; returns where each one starts, in seconds,
    followed by the total duration (measured from the WAV lengths, so chapters land exactly)."""
    if not tools_available():
        raise NarrationUnavailable("espeak-ng and opusenc are required to generate narration")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        marks, whole = speak_chapters(texts, language, Path(tmp))
        partial = target.with_suffix(".part")
        subprocess.run(
            # Complexity 0 takes a third of the default's CPU (set-up narrates 21 pages, about 18
            # minutes of speech each); the bitrate, and so the file size, stays the same.
            ["opusenc", "--quiet", "--speech", "--bitrate", "24", "--comp", "0", str(whole), str(partial)],
            check=True,
            capture_output=True,
        )
        partial.replace(target)  # atomic: a half-written file is never served
    return marks


def speak_chapters(texts: list[str], language: str, folder: Path) -> tuple[list[float], Path]:
    """espeak-ng alone: each text in turn into one WAV file in `folder`; returns where each text
    starts, in seconds, followed by the total, and the file. Encoding it is most of the CPU."""
    waves = [_speak(text, language, folder / f"part{i}") for i, text in enumerate(texts)]
    return _concatenate(waves, folder / "speech.wav")


def _speak(text: str, language: str, stem: Path) -> Path:
    text_file, wav_file = stem.with_suffix(".txt"), stem.with_suffix(".wav")
    text_file.write_text(text, encoding="utf-8")
    rate = str(WORDS_PER_MINUTE[language])
    subprocess.run(
        ["espeak-ng", "-v", VOICES[language], "-s", rate, "-f", str(text_file), "-w", str(wav_file)],
        check=True,
        capture_output=True,
    )
    return wav_file


def _concatenate(parts: list[Path], target: Path) -> tuple[list[float], Path]:
    """Joins WAV files of one format; returns each part's start and the total, in seconds."""
    marks, frames = [], 0
    with wave.open(str(target), "wb") as out:
        for index, part in enumerate(parts):
            with wave.open(str(part), "rb") as wav:
                if index == 0:
                    out.setparams(wav.getparams())
                    rate = wav.getframerate()
                marks.append(frames / rate)
                out.writeframes(wav.readframes(wav.getnframes()))
                frames += wav.getnframes()
    return [*marks, frames / rate], target


def write_chapters_vtt(chapters: list[dict], total: float, target: Path) -> None:
    """A WebVTT chapters track ({'title', 'start'} each) for the audio element's <track>."""
    ends = [chapter["start"] for chapter in chapters[1:]] + [total]
    cues = [
        f"{chapter['id'] or 'start'}\n{_vtt_time(chapter['start'])} --> {_vtt_time(end)}\n{chapter['title']}\n"
        for chapter, end in zip(chapters, ends, strict=True)
    ]
    target.write_text("WEBVTT\n\n" + "\n".join(cues), encoding="utf-8")


def read_chapters_vtt(path: Path) -> list[tuple[float, str]]:
    """(start in seconds, title) of each cue, as written by `write_chapters_vtt`."""
    cues = []
    for block in path.read_text(encoding="utf-8").split("\n\n")[1:]:
        lines = block.strip().splitlines()
        if len(lines) >= 3 and " --> " in lines[1]:
            hours, minutes, seconds = lines[1].split(" --> ")[0].split(":")
            cues.append((int(hours) * 3600 + int(minutes) * 60 + float(seconds), lines[2]))
    return cues


def _vtt_time(seconds: float) -> str:
    millis = round(seconds * 1000)
    return f"{millis // 3_600_000:02d}:{millis // 60_000 % 60:02d}:{millis // 1000 % 60:02d}.{millis % 1000:03d}"
