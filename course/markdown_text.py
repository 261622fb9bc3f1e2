"""A guide's Markdown split once into what a reader reads as prose and what is code or math.

Everything that walks a guide's Markdown (headings, exercises, runnable blocks, figure markers,
study time) reads it through `blocks`, so a `# comment` in a code block is never a heading nor a
figure marker. The rendered HTML marks the same parts with CODE_CLASS and MATH_CLASS: glosses and
French typography leave them alone, and `without_code_and_math` takes them out of what is read
aloud, searched and counted. No Django: the content checks use it as well as the renderer.
"""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

PROSE, CODE, MATH = "prose", "code", "math"
# A code fence: three or more backticks or tildes, then (opening it) an info string.
FENCE_RE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
MATH_DELIMITER = "$$"  # display math stands between two lines of their own (pymdownx.arithmatex)
CODE_CLASS = "codehilite"  # the div around a rendered code block (the codehilite extension's)
MATH_CLASS = "arithmatex"  # the span (inline) or div (display) around a rendered formula
CODE_BLOCK_RE = re.compile(rf'<div class="(?:[^"]* )?{CODE_CLASS}(?: [^"]*)?">.*?</div>', re.S)  # "runnable codehilite"
FORMULA_RE = re.compile(rf'<(div|span) class="{MATH_CLASS}">.*?</\1>', re.S)


@dataclass(frozen=True)
class Block:
    """Lines of one kind in a row: prose, a fenced code block or a display formula."""

    kind: str
    body: tuple[str, ...]  # the lines inside the delimiters (a prose block: all of its lines)
    opening: str = ""  # a code or math block's first line, as written
    closing: str | None = None  # its last line; None when the text ends before the block does
    info: str = ""  # a code block's info string: "python", "{ .python .runnable }"

    @property
    def lines(self) -> tuple[str, ...]:
        """Every line as written, delimiters included."""
        if self.kind == PROSE:
            return self.body
        return (self.opening, *self.body, *(() if self.closing is None else (self.closing,)))

    @property
    def text(self) -> str:
        return "\n".join(self.body)


def blocks(source: str) -> list[Block]:
    """The source's lines, in order, as prose, code and math blocks."""
    found: list[Block] = []
    prose: list[str] = []
    lines = iter(source.splitlines())
    for line in lines:
        opened = _opening(line)
        if opened is None:
            prose.append(line)
            continue
        if prose:
            found.append(Block(PROSE, tuple(prose)))
            prose = []
        kind, info, closes = opened
        body, closing = [], None
        for inner in lines:
            if closes(inner):
                closing = inner
                break
            body.append(inner)
        found.append(Block(kind, tuple(body), line, closing, info))
    if prose:
        found.append(Block(PROSE, tuple(prose)))
    return found


def _opening(line: str) -> tuple[str, str, Callable[[str], bool]] | None:
    """(kind, info string, whether a line closes it) when `line` opens a code or math block."""
    fence = FENCE_RE.match(line)
    if fence:
        mark = fence.group("fence")
        closing_re = re.compile(rf"^[ \t]*{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$")
        return CODE, fence.group("info").strip(), lambda candidate: bool(closing_re.match(candidate))
    if line.strip() == MATH_DELIMITER:
        return MATH, "", lambda candidate: candidate.strip() == MATH_DELIMITER
    return None


def classified_lines(source: str) -> Iterator[tuple[str, str]]:
    """(kind, line) for every line of the source, in order (a delimiter line is of its block's kind)."""
    for block in blocks(source):
        for line in block.lines:
            yield block.kind, line


def prose_lines(source: str) -> list[str]:
    """The lines outside code and math blocks."""
    return [line for kind, line in classified_lines(source) if kind == PROSE]


def code_blocks(source: str) -> list[Block]:
    return [block for block in blocks(source) if block.kind == CODE]


def without_code_and_math(body_html: str) -> str:
    """Rendered HTML with each code block and formula replaced by a space: words a reader reads."""
    return FORMULA_RE.sub(" ", CODE_BLOCK_RE.sub(" ", body_html))
