"""What a French reader checks in French text, as the tests read it: the faults of typography left in
prose (tests/course/test_typography.py for guides, tests/quizzes/test_french_typography.py for quiz
texts, tests/test_french_ui_strings.py for the UI strings), and the readers of HTML and .po files
that take the prose out of them. Code, math, URLs and format placeholders are not prose.
"""

import ast
import re
from html.parser import HTMLParser
from pathlib import Path

CODE_TAGS = {"code", "pre", "kbd", "samp", "var", "script", "style"}
CODE_CLASSES = {"arithmatex", "codehilite", "guide-figure-slot"}
CODE_SPAN_RE = re.compile(r"`[^`]*`")
URL_RE = re.compile(r"(?:https?|mailto):\S+|\bwww\.\S+|\S+@\S+\.\w+")

# Names after which a dotted number is a version or an identifier, not a decimal: PyTorch 2.0,
# transformers 4.46 et 4.47, arXiv 1705.08741, Open Badges 3.0.
VERSION_CONTEXT_RE = re.compile(
    r"(?:pytorch|torch|transformers|python|cuda|cudnn|nccl|accelerate|lightning|deepspeed|torchtune|numpy|"
    r"django|peft|trl|triton|jax|badges|version|versions|arxiv|release)"
    r"\s+(?:\d+(?:\.\d+)+\s*(?:,|et|ou|à|-|–)\s*)*$",
    re.IGNORECASE,
)
# 4e, 4ème, 4è, 1er, 1re, 2nd and n° 3: an ordinal's letters are superscript (4ᵉ, 1ᵉʳ, 1ʳᵉ, 2ⁿᵈ,
# nᵒ 3); 1e-7 is a number.
ORDINAL_RE = re.compile(r"(?<![\w.,])\d+(?:e|è|ème|ième|eme|er|re|ère|nd|nde)(?![\w+-])|(?<!\w)[nN][°º]")
# The French norm (CGPM 1948, AFNOR) groups a quantity's digits by three from four digits up: 1 024,
# 8 000. A number that names something stays whole: a year, an issue (#2719), an arXiv paper, a line.
FOUR_DIGITS_RE = re.compile(r"(?<![\d.,#/\w-])(?<!\d[\u202f\u00a0 ])\d{4}(?![\d\w]|[.,]\d)")
YEARS = range(1950, 2031)
# ...unless what follows counts something: "2000 pas", "2048 = 8 × 256".
QUANTITY_AFTER_RE = re.compile(
    r"[\s\u00a0\u202f]*(?:[×÷=/*+−]|pas\b|exemples?\b|tokens?\b|images?\b|micro-lots?\b|[KMG]io\b)"
)
NAMING_CONTEXT_RE = re.compile(
    r"(?:(?<!\w)(?:arxiv|pr|issue|ligne|lignes|page|port|nᵒ|numéro|seed|graine)|#)[\s\u00a0]*$", re.IGNORECASE
)
# 5,8e-2, 1e-7, 3.6e-7 (but not a name such as "fp8e4m3", nor 4e, an ordinal).
E_NOTATION_RE = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?e[-−+]?\d+(?!\w)")
# 0,81, 1,20 et 1,40 or 3, 2,5 et 4: with the decimal comma, a list separated by ", " reads as other
# numbers ("3,9, 2,5" as one); French separates decimal numbers with « ; » (0,81 ; 1,20 et 1,40).
DECIMAL_LIST_RE = re.compile(r"(?<![\d,.])\d+,\d+,[ \u00a0\u202f]+[-−]?\d|(?<![\d,.])\d+,[ \u00a0\u202f]+[-−]?\d+,\d")
FAULTS = [
    # (what is wrong, where it is)
    ("; ! ? need U+202F before them", re.compile(r"(?<![\u202f;!?(\[{«“‘/:])[;!?]+(?=[\s)\]»”’.,…]|$)")),
    (": needs U+00A0 before it", re.compile(r"(?<![\u00a0:(\[{«“‘/])(?<!^):(?=\s|$)")),
    ("« needs U+00A0 after it", re.compile(r"«(?!\u00a0)")),
    ("» needs U+00A0 before it", re.compile(r"(?<!\u00a0)»")),
    ("straight or English quotes: write « »", re.compile(r"[\"“”]")),
    ("a number of 5 digits or more: group them, 10 000", re.compile(r"(?<![\d#.,/\w-])\d{5,}(?![\d\w])")),
    ("digit groups are joined by U+202F", re.compile(r"(?<![\d.,])\d{1,3}[ \u00a0]\d{3}(?!\d)")),
    ("a number's % needs U+202F before it", re.compile(r"\d(?:[ \u00a0])?%")),
    ("a straight apostrophe: write ’ (U+2019)", re.compile(r"'")),
    ("an ordinal: write 4ᵉ, 1ᵉʳ, 2ⁿᵈ or the word, and nᵒ for a number", ORDINAL_RE),
    # Issue 40 (second reader): 1e-7 is code's way of writing a number; French prose writes 10⁻⁷.
    ("e-notation in prose: write 5,8 × 10⁻² or 10⁻⁷", E_NOTATION_RE),
    # Issue 40 (third reader): « environ 3,9, 2,5 et 4,3 ».
    ("decimal numbers in a list: separate them with « ; » (0,81 ; 1,20 et 1,40)", DECIMAL_LIST_RE),
]
# A dotted number written as code (max_norm=1.0) is code.
DECIMAL_POINT_RE = re.compile(r"(?<![\w.=])\d+\.\d+(?![\w.]*\d)")


def faults(text: str) -> list[str]:
    """Each fault of French typography in `text` (prose: no code, no markup), with its context."""
    text = URL_RE.sub(" ", text)
    found = []
    for what, pattern in FAULTS:
        found += [f"{what}: {_around(text, m)!r}" for m in pattern.finditer(text)]
    for m in FOUR_DIGITS_RE.finditer(text):
        year = int(m.group()) in YEARS and not QUANTITY_AFTER_RE.match(text, m.end())
        if not year and not NAMING_CONTEXT_RE.search(text[max(0, m.start() - 12) : m.start()]):
            found.append(f"a quantity of 4 digits: group it, 1\u202f024: {_around(text, m)!r}")
    for m in DECIMAL_POINT_RE.finditer(text):
        if not VERSION_CONTEXT_RE.search(text[max(0, m.start() - 60) : m.start()]):
            found.append(f"decimal comma in prose, 0,5 (a version needs its name before it): {_around(text, m)!r}")
    return found


# The voice (espeak-ng) reads "4ᵉ" as the letters' names: a spoken text says its ordinals in words.
SPOKEN_ORDINAL_RE = re.compile(rf"{ORDINAL_RE.pattern}|\d+[ᵉʳⁿᵈ]+|(?<!\w)[nN]ᵒ")
SPOKEN_FOUR_DIGITS_RE = re.compile(r"(?<![\d.,#/\w-])(?<!\d )\d{4}(?![\d\w]|[.,]\d)")


def spoken_faults(text: str) -> list[str]:
    """The faults of a text written for the voice (a spoken summary, plain text that no rule sets):
    its apostrophes, ordinals in words, and a quantity's digits in groups (the voice reads "8 000"
    and "8000" alike, a reader of the file does not)."""
    found = [f"a straight apostrophe: write ’ (U+2019): {_around(text, m)!r}" for m in re.finditer("'", text)]
    found += [
        f"an ordinal the voice spells: write it in words: {_around(text, m)!r}"
        for m in SPOKEN_ORDINAL_RE.finditer(text)
    ]
    for m in SPOKEN_FOUR_DIGITS_RE.finditer(text):
        year = int(m.group()) in YEARS and not QUANTITY_AFTER_RE.match(text, m.end())
        if not year and not NAMING_CONTEXT_RE.search(text[max(0, m.start() - 12) : m.start()]):
            found.append(f"a quantity of 4 digits: group it, 1 024: {_around(text, m)!r}")
    return found


def _around(text: str, match: re.Match) -> str:
    return text[max(0, match.start() - 30) : match.end() + 10]


def plain_prose(text: str) -> str:
    """A plain text without its `code` spans (quiz texts, front matter)."""
    return CODE_SPAN_RE.sub(" ", text)


class _Prose(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[bool] = []  # for each open element: is it code?
        self.runs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in {"br", "hr", "img", "input", "wbr", "col", "source", "meta", "link"}:
            return
        classes = set((dict(attrs).get("class") or "").split())
        self.open.append(tag in CODE_TAGS or bool(classes & CODE_CLASSES))

    def handle_endtag(self, tag):
        if self.open:
            self.open.pop()

    def handle_data(self, data):
        if not any(self.open):
            self.runs.append(data)


def html_prose(fragment: str) -> list[str]:
    """The runs of prose of an HTML fragment: the text between tags, outside code and math."""
    parser = _Prose()
    parser.feed(fragment)
    parser.close()
    return parser.runs


PO_STRING_RE = re.compile(r'^(msgid|msgid_plural|msgstr(?:\[\d+\])?|msgctxt)\s+(".*")\s*$')
PLACEHOLDER_RE = re.compile(r"%\([a-z_]+\)[sdf]|%[sdf]|\{[a-z_]+\}")
TAG_RE = re.compile(r"<[^>]+>")


def po_entries(path: Path) -> list[tuple[str, str]]:
    """(msgid, msgstr) of every translated entry of a .po file, plural forms included."""
    entries, current, key = [], {}, None

    def flush() -> None:
        if current.get("msgid"):
            entries.extend((current["msgid"], v) for k, v in current.items() if k.startswith("msgstr") and v)

    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = line.strip()
        if match := PO_STRING_RE.match(line):
            key = match.group(1)
            if key in ("msgid", "msgctxt") and any(k.startswith("msgstr") for k in current):
                flush()
                current = {}
            current[key] = current.get(key, "") + ast.literal_eval(match.group(2))
        elif line.startswith('"') and key:
            current[key] += ast.literal_eval(line)
        elif not line:
            flush()
            current, key = {}, None
    return entries


def po_prose(msgstr: str) -> str:
    """A UI string as prose: placeholders read as a number would ("%(score)s %%" -> "0 %"), tags
    dropped."""
    return TAG_RE.sub(" ", PLACEHOLDER_RE.sub("0", msgstr).replace("%%", "%"))
