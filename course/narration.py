"""Narration audio: espeak-ng speaks the guide text, opusenc stores it as Ogg/Opus.

Generated offline by `manage.py generate_narration`; a file is rebuilt only when its text changes.
"""

import hashlib
import shutil
import subprocess
import tempfile
import wave
from pathlib import Path

VOICES = {"en": "en-us", "hi": "hi", "fr": "fr-fr"}
WORDS_PER_MINUTE = {"en": 165, "hi": 150, "fr": 160}


class NarrationUnavailable(RuntimeError):
    """espeak-ng or opusenc is not installed (the set-up installs both from Debian)."""


def tools_available() -> bool:
    return bool(shutil.which("espeak-ng") and shutil.which("opusenc"))


def narration_filename(slug: str, language: str, text: str) -> str:
    digest = hashlib.sha256(f"{VOICES[language]}\n{text}".encode()).hexdigest()[:12]
    return f"{slug}.{language}.{digest}.ogg"


def wav_seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as wav:
        return wav.getnframes() / float(wav.getframerate())


def synthesize(text: str, language: str, target: Path) -> float:
    """Writes `target` (Ogg/Opus) and returns its duration in seconds."""
    if not tools_available():
        raise NarrationUnavailable("espeak-ng and opusenc are required to generate narration")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        text_file, wav_file = Path(tmp) / "text.txt", Path(tmp) / "speech.wav"
        text_file.write_text(text, encoding="utf-8")
        rate = str(WORDS_PER_MINUTE[language])
        subprocess.run(
            ["espeak-ng", "-v", VOICES[language], "-s", rate, "-f", str(text_file), "-w", str(wav_file)],
            check=True,
            capture_output=True,
        )
        seconds = wav_seconds(wav_file)
        partial = target.with_suffix(".part")
        subprocess.run(
            # Complexity 0 takes a third of the default's CPU (set-up narrates 21 pages, about 18
            # minutes of speech each); the bitrate, and so the file size, stays the same.
            ["opusenc", "--quiet", "--speech", "--bitrate", "24", "--comp", "0", str(wav_file), str(partial)],
            check=True,
            capture_output=True,
        )
        partial.replace(target)  # atomic: a half-written file is never served
    return seconds
