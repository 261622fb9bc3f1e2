"""Guides, guide quizzes, the final exam and the site's own words (the translations in locale/) follow
one glossary (content/glossary.yaml).

Prose only is checked: fenced code, `code` spans, math and the glossary's allowed phrases are
skipped, because code keeps its own names (`loss.backward()`) and quoted titles stay as written; in
a translation, its placeholders (%(name)s) and HTML tags are skipped too.
"""

import ast
import itertools
import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from course.content import guide_folders, load_guide_file
from course.markdown_text import CODE, classified_lines, prose_lines
from quizzes.content import quiz_files

CONTENT_DIR = Path(settings.BASE_DIR) / "content"
LOCALE_DIR = Path(settings.BASE_DIR) / "locale"
GLOSSARY = yaml.load((CONTENT_DIR / "glossary.yaml").read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
LANGUAGES = ("en", "hi", "fr")
DEVANAGARI = "\u0900-\u097f"
# Letters and signs that continue a word: the block without its punctuation (the danda । and ॥)
# and digits, so "ट्रेनिंग।" ends its word at the danda.
DEVANAGARI_LETTER = "\u0900-\u0963\u0971-\u097f"
NUKTA = "\u093c"
PRECOMPOSED_NUKTA_RE = re.compile("[\u0958-\u095f]")
CODE_SPAN_RE = re.compile(r"`[^`\n]*`")
MATH_RE = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
HEADING_ID_RE = re.compile(r"\{#[a-z0-9-]+\}")
# A guide's front matter: its keys (guide:, url:, text:) are names, not words of the page.
FRONT_MATTER_KEY_RE = re.compile(r"^[ \t]*(?:- )?[a-z_]+:", re.M)
PLACEHOLDER_RE = re.compile(r"%(?:\([a-z_]+\))?[sd]|%%|<[^>]*>")
PO_LINE_RE = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?) (".*")$')


def prose(text: str, lang: str) -> str:
    text = "\n".join(prose_lines(text))  # without fenced code and display math, read as the course reads them
    for pattern in (CODE_SPAN_RE, MATH_RE, HEADING_ID_RE, FRONT_MATTER_KEY_RE):
        text = pattern.sub(" ", text)
    for phrase in GLOSSARY["allowed"].get(lang, []):
        text = text.replace(phrase, " ")
    return text


def word_pattern(word: str) -> re.Pattern:
    """A whole word; for Latin words, not part of an identifier such as loss.backward or loss_fn."""
    if re.search(f"[{DEVANAGARI}]", word):
        # A phrase that opens with a Latin word ("fit हो") starts a Latin word: not the end of "overfit".
        before = r"(?<![\w.`/_-])" if re.match("[A-Za-z]", word) else rf"(?<![{DEVANAGARI_LETTER}])"
        return re.compile(rf"{before}{re.escape(word)}(?![{DEVANAGARI_LETTER}])", re.IGNORECASE)
    return re.compile(rf"(?<![\w.`/_-])(?<!\w\(){re.escape(word)}(?![\w(_/=-]|\.\w)", re.IGNORECASE)


def stem_pattern(stem: str) -> re.Pattern:
    """A word starting with this stem and not continuing it with a nukta (फ़र्क but not फ़र्क़)."""
    return re.compile(rf"(?<![{DEVANAGARI_LETTER}]){re.escape(stem)}(?!{NUKTA})")


def whole_word_pattern(word: str) -> re.Pattern:
    """This word or its plural (सबक, सबकों) but not a longer word it begins (सबको, everyone)."""
    return re.compile(rf"(?<![{DEVANAGARI_LETTER}]){re.escape(word)}(?:ों|ें)?(?![{DEVANAGARI_LETTER}])")


# Hindi, issue 40 (ninth readers): a refused verb phrase is listed by its -ता/-ते/-ती forms ("step
# लेता"), and word_pattern() matched those three words only, so "step लेकर", "उन पर step लें", "steps
# लेने", "बड़े स्टेप ले सकते" (a spoken summary) slipped through. A refused phrase that ends in an
# imperfective participle now refuses the verb in every form (its stem, then one of VERB_ENDINGS, or
# the irregular perfective), and a Latin noun that opens it also in the plural and as the spoken
# summaries spell it (glossary.yaml's hindi_spoken: स्टेप, स्टेपों).
VERB_ENDINGS = "ता ते ती तीं ना ने नी कर ं ें ेंगे ेगा ेगी ा े ी ीं या ये ए ई ईं".split()
IRREGULAR_PERFECTIVE = {"ले": ["लिया", "लिए", "लिये", "ली", "लीं"], "कर": ["किया", "किए", "की"], "हो": ["हुआ", "हुए", "हुई"]}


# Hindi, issue 40 (tenth readers): a refused noun phrase "X का Y" was matched as written, so
# "micro-batches का आकार" and "model के आकार" slipped past "micro-batch का आकार" and "model का आकार".
# A refused phrase of a Latin noun, a masculine genitive (का, के) and a Devanagari noun now refuses
# the Latin noun in the plural, the genitive in either form, and the noun in the oblique plural (-ों).
GENITIVE_PHRASE_RE = re.compile(rf"([A-Za-z][A-Za-z-]*) (?:का|के) ([{DEVANAGARI}]+)")


def noun_phrase_pattern(phrase: str) -> re.Pattern | None:
    match = GENITIVE_PHRASE_RE.fullmatch(phrase)
    if not match:
        return None
    noun, head = match.groups()
    return re.compile(
        rf"(?<![\w.`/_-]){re.escape(noun)}(?:s|es)?[ \u00a0](?:का|के)[ \u00a0]{re.escape(head)}(?:ों)?"
        rf"(?![{DEVANAGARI_LETTER}])",
        re.IGNORECASE,
    )


def refused_pattern(phrase: str) -> re.Pattern:
    words = phrase.split(" ")
    verb = re.fullmatch(rf"([{DEVANAGARI}]+?)(?:ता|ते|ती)", words[-1])
    if not verb:
        return noun_phrase_pattern(phrase) or word_pattern(phrase)
    first = words[0]
    if len(words) > 1 and re.fullmatch("[A-Za-z-]+", first):
        spoken = SPOKEN.get(first)
        forms = [first, f"{first}s", *([spoken, f"{spoken}ों"] if spoken else [])]
        head = rf"(?<![\w.`/_-])(?:{alternation(forms)})"
    else:
        head = rf"(?<![{DEVANAGARI_LETTER}]){re.escape(first)}" if len(words) > 1 else ""
    middle = "".join(rf"[ \u00a0]{re.escape(word)}" for word in words[1:-1])
    stem = verb.group(1)
    endings = [*VERB_ENDINGS, *([""] if len(words) > 1 else [])]
    forms = [stem + ending for ending in endings] + IRREGULAR_PERFECTIVE.get(stem, [])
    before = rf"{head}{middle}[ \u00a0]" if head else rf"(?<![{DEVANAGARI_LETTER}])"
    return re.compile(rf"{before}(?:{alternation(forms)})(?![{DEVANAGARI_LETTER}])", re.IGNORECASE)


# English month names in a Hindi sentence: Hindi writes अक्टूबर 2024, as the guides do.
ENGLISH_MONTH_RE = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b"
)


# The learner is addressed in one form, the -ें imperative of the headings and the UI ("ध्यान
# रखें", "जमा करें", "न करें"); the -इए form (कीजिए, देखिए) is flagged. These words end in -िए and
# are no imperatives.
NOT_IMPERATIVES = {"लिए", "इसलिए", "इसीलिए", "चाहिए", "किए", "दिए", "ज़रिए", "पिए", "जिए", "सिए"}
IE_IMPERATIVE_RE = re.compile(
    rf"(?<![{DEVANAGARI_LETTER}])[{DEVANAGARI_LETTER}]+(?:िए|इए|िये|इये)(?:गा)?(?![{DEVANAGARI_LETTER}])"
)


def ie_imperatives(text: str) -> list[str]:
    words = (match.group() for match in IE_IMPERATIVE_RE.finditer(text))
    return [f"{word!r} (the -ें form)" for word in words if word not in NOT_IMPERATIVES]


HINDI_GENDER = {
    noun: gender for gender, nouns in GLOSSARY["hindi_gender"].items() if gender != "none" for noun in nouns
}
SPOKEN = GLOSSARY["hindi_spoken"]
# Hindi nouns that end a spoken term ("टेस्ट फ़ाइल" is a file): the term's gender is theirs.
SPOKEN_COMPOUND_HEADS = ["फ़ाइल"]
# Verbs that say something of their subject and take no object, so the noun right before them is
# their subject and they agree with it ("curve बढ़ती है", "error आई", "run चलता रहा"). Left out: a
# verb that takes an object ("rule learning rate देता है" agrees with rule), बनना (its noun is often
# a predicate: "यह error बन सकता है"), and a stem whose transitive form is the stem and ा
# (खिसका, छिपा, बचा: "learning rate खिसका देती हैं").
INTRANSITIVE_STEMS = (
    "बढ़ घट गिर रह हो आ चल मिल समा टूट रुक पहुँच निकल दिख फैल बिगड़ सुधर उछल भटक अटक छूट ठहर लौट फट बैठ"
).split()
AUXILIARIES = "जा रह सक चुक पा लग पड़ हो".split()
IMPERFECTIVE = {"masculine": ["ता", "ते"], "feminine": ["ती", "तीं"]}
# A bare perfective ("बढ़ा") is also the transitive stem ("बढ़ा दी"), so it counts only before an
# auxiliary of being or at the end of a clause.
PERFECTIVE = {"masculine": ["ा", "े", "या", "ए", "ये"], "feminine": ["ी", "ीं", "ई", "ईं", "यी"]}
IRREGULAR = {"masculine": ["गया", "गए", "गये", "हुआ", "हुए"], "feminine": ["गई", "गईं", "गयी", "हुई", "हुईं"]}
CLAUSE_END = r"(?=[ \u00a0](?:है|हैं|था|थे|थी|थीं)(?![\u0900-\u0963\u0971-\u097f])|[।॥,;:?!.)]|$)"
# Words that may stand between a subject and its verb without changing what agrees with what.
BETWEEN = "भी ही तो नहीं न अब फिर कभी ठीक सामान्य लगभग अचानक धीरे-धीरे ज़्यादा कम अलग".split()
# Nouns that also make a verb with होना, which agrees with its own subject ("step() call होता है").
CONJUNCT_VERB_NOUNS = {"call", "update", "test", "scale"}  # "window सही scale होती है": it is scaled
# Terms of two English words whose last one is a noun with a gender: "का loss curve" reads as
# "का … curve", "उसकी optimizer state" as "उसकी … state".
COMPOUND_TERMS = [
    "loss curve", "optimizer state", "peak learning rate", "top-1 error", "activation memory", "training loss",
    "validation loss", "running statistics", "effective batch", "global batch",
]  # fmt: skip


def alternation(words) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


def noun_forms(noun: str, spoken: bool) -> str:
    """The noun or its plural, where it ends its term ("run" but not the "run" of "run config")."""
    if spoken:
        others = alternation([*SPOKEN.values(), *SPOKEN_COMPOUND_HEADS])
        next_term = rf"[ \u00a0](?:{others})(?![{DEVANAGARI_LETTER}])"
        return rf"{re.escape(SPOKEN[noun])}(?:ों|ें)?(?![{DEVANAGARI_LETTER}-])(?!{next_term})"
    if re.search(f"[{DEVANAGARI}]", noun):
        return rf"{re.escape(noun)}(?:ों|ें)?(?![{DEVANAGARI_LETTER}])"
    next_word = r"[ \u00a0][A-Za-z][\w.]*[A-Za-z0-9]|-[A-Za-z]"
    return rf"(?<![\w-]){re.escape(noun)}(?:s|es)?(?![\w-])(?!{next_word})"


def gender_pattern(noun: str, modifiers: list[str], spoken: bool = False) -> re.Pattern:
    """The noun right after one of these words, or after them and the first words of its term in
    COMPOUND_TERMS."""
    first_words = [term.rsplit(" ", 1)[0] for term in COMPOUND_TERMS if term.endswith(f" {noun}")]
    term_words = "" if spoken or not first_words else rf"(?:(?:{alternation(first_words)})[ \u00a0])?"
    return re.compile(
        rf"(?<![{DEVANAGARI_LETTER}-])(?:{alternation(modifiers)})[ \u00a0]{term_words}{noun_forms(noun, spoken)}",
        re.IGNORECASE,
    )


def verb_pattern(noun: str, gender: str, spoken: bool = False) -> re.Pattern:
    """The noun followed by a verb of INTRANSITIVE_STEMS in this gender's form ("बढ़ता", "बढ़
    जाता", "बढ़ गया", "बढ़ा है"), or by a passive in this gender's form, whose participle agrees
    with its subject ("padding गिना नहीं जाता", issue 40); not after और, where two nouns agree
    together ("weights और optimizer state आते हैं")."""
    stems = alternation(INTRANSITIVE_STEMS)
    imperfective, perfective = alternation(IMPERFECTIVE[gender]), alternation(PERFECTIVE[gender])
    auxiliary = rf"(?:{alternation(AUXILIARIES)})(?:{imperfective}|{perfective})|{alternation(IRREGULAR[gender])}"
    passive = rf"(?:जा(?:{imperfective})|{alternation(IRREGULAR[gender])})(?![{DEVANAGARI_LETTER}])"
    verb = (
        rf"(?:{stems})(?:{imperfective}|[ \u00a0](?:{auxiliary}))(?![{DEVANAGARI_LETTER}])"
        rf"|(?:{stems})(?:{perfective}){CLAUSE_END}"
        rf"|[{DEVANAGARI_LETTER}]+(?:{perfective})[ \u00a0](?:नहीं[ \u00a0])?{passive}"
    )
    between = rf"(?:(?:{alternation(BETWEEN)})[ \u00a0])?"
    first_words = [term.rsplit(" ", 1)[0] for term in COMPOUND_TERMS if term.endswith(f" {noun}")]
    term = rf"(?:(?:{alternation(first_words)})[ \u00a0])?" if first_words and not spoken else ""
    not_after_and = "".join(rf"(?<!और {re.escape(words)})" for words in ["", *(f"{w} " for w in first_words)])
    return re.compile(
        rf"{not_after_and}(?<![A-Za-z0-9-]){term}{noun_forms(noun, spoken)}[ \u00a0]{between}(?:{verb})",
        re.IGNORECASE | re.M,
    )


# Each noun's patterns, built once: a check reads up to 900 texts, and building these long
# alternations again for every text took seconds.
def agreement_patterns(spoken: bool) -> list[tuple[str, str, re.Pattern]]:
    patterns = []
    for noun, gender in HINDI_GENDER.items():
        if spoken and noun not in SPOKEN:
            continue
        other = "feminine" if gender == "masculine" else "masculine"
        patterns.append((noun, gender, gender_pattern(noun, GLOSSARY["hindi_agreement"][other], spoken)))
        if noun not in CONJUNCT_VERB_NOUNS:
            patterns.append((noun, gender, verb_pattern(noun, other, spoken)))
    return patterns


AGREEMENT_PATTERNS = {False: agreement_patterns(False), True: agreement_patterns(True)}


# Hindi, issue 40 (eighth readers, the rest): -ing nouns (clipping, offloading, sharding) are feminine,
# and a transitive verb agrees with them as their subject, which the checks above, reading only the
# next word, miss: "और offloading optimizer state को GPU से बाहर ले जाता है". This one reads an -ing noun
# of `hindi_gender` that opens a clause (after और, then up to two Latin words: "Activation
# checkpointing"; not "Adam और clipping", two subjects that agree in the masculine plural), is
# followed by no postposition (so it is the subject), or by an object with को, and then, within
# ten words and no new subject (यह, जो, कि …), by a masculine imperfective (करता है, घटाता, ले जाते
# थे). It cannot see a subject it does not open the clause with ("DeepSpeed में sharding … करता"), a
# perfective ("clipping ने … किया"), nor a verb more than ten words on; an English noun right after
# the -ing word without को reads as a compound ("padding token गिना जाता है") and is left alone.
ING_NOUNS = [noun for noun, gender in HINDI_GENDER.items() if gender == "feminine" and noun.endswith("ing")]
ING_NOT_NEXT = (
    "का के की को में से पर ने तक वाला वाले वाली जैसा जैसे जैसी और या बनाम नियम"
    " threshold token tokens strategy config interval mask ratio value values"  # the head of a compound
).split()
ING_NEW_SUBJECT = "यह वह ये वे जो जब अगर तो कि और लेकिन पर जिससे जिसे जिनमें क्योंकि इसलिए यानी बल्कि जबकि".split()
ING_WORD = rf"(?:(?!(?:{alternation(ING_NEW_SUBJECT)})(?![{DEVANAGARI_LETTER}]))[^\s,;:।?!()“”\"]+)"
ING_SUBJECT_RE = re.compile(
    rf"(?:^|[।?!;:,(\n]|“)[ \u00a0]*(?:और[ \u00a0])?(?:[A-Za-z][\w.-]*[ \u00a0]){{0,2}}"
    rf"(?:{alternation(ING_NOUNS)})(?![\w-])"
    rf"(?:(?![ \u00a0][A-Za-z])|(?=(?:[ \u00a0][A-Za-z][\w.-]*){{1,3}}[ \u00a0]को(?![{DEVANAGARI_LETTER}])))"
    rf"(?![ \u00a0](?:{alternation(ING_NOT_NEXT)})(?![{DEVANAGARI_LETTER}]))"
    rf"(?:[ \u00a0]{ING_WORD}){{0,10}}?[ \u00a0][{DEVANAGARI_LETTER}]+त(?:ा|े)"
    rf"(?:[ \u00a0](?:है|हैं|था|थे|रहा|रहे)|(?=[।,;:?!)]|$))(?![{DEVANAGARI_LETTER}])",
    re.IGNORECASE | re.M,
)


# Hindi, issue 40 (tenth readers): "PyTorch की torchtune library हर micro-batch के mean loss को … गुणा
# करता है, उस sum पर backward चलाता है, गिनती साथ-साथ जोड़ता है": library is feminine, and its four
# verbs came after thirteen words, past the reach of the checks above. The same reading as for the
# -ing nouns, for the other feminine nouns that act as a subject (a library does things), with a
# genitive owner allowed before the name ("PyTorch की torchtune library") and a verb up to fifteen
# words on (the first verb is enough to flag the sentence; the later ones are read by hand).
FEMININE_ACTORS = ["library"]
FEMININE_ACTOR_RE = re.compile(
    rf"(?:^|[।?!;:,(\n]|“)[ \u00a0]*(?:और[ \u00a0])?(?:[A-Za-z][\w.-]*[ \u00a0]की[ \u00a0])?"
    rf"(?:[A-Za-z][\w.-]*[ \u00a0]){{0,2}}(?:{alternation(FEMININE_ACTORS)})(?![\w-])"
    rf"(?![ \u00a0](?:{alternation(ING_NOT_NEXT)})(?![{DEVANAGARI_LETTER}]))"
    rf"(?:[ \u00a0]{ING_WORD}){{0,15}}?[ \u00a0][{DEVANAGARI_LETTER}]+त(?:ा|े)"
    rf"(?:[ \u00a0](?:है|हैं|था|थे|रहा|रहे)|(?=[।,;:?!)]|$))(?![{DEVANAGARI_LETTER}])",
    re.IGNORECASE | re.M,
)


def ing_subject_disagreements(text: str) -> list[str]:
    found = [
        f"{match.group().strip(' ,;:।(“')!r} (-ing nouns are feminine: करती, घटाती)"
        for match in ING_SUBJECT_RE.finditer(text)
    ]
    found += [
        f"{match.group().strip(' ,;:।(“')!r} (a library is feminine: करती, चलाती)"
        for match in FEMININE_ACTOR_RE.finditer(text)
    ]
    return found


def disagreements(text: str, spoken: bool = False) -> list[str]:
    """Hindi nouns with the other gender's form of an adjective, possessive or participle before
    them, or of an intransitive verb after them."""
    found = []
    for noun, gender, pattern in AGREEMENT_PATTERNS[spoken]:
        for match in pattern.finditer(text):
            found.append(f"{match.group()!r} ({noun} is {gender})")
    return found


# French, issue 40 (third reader): « Par exemple traité, … » (per example processed) reads as "for
# example, processed…". « par exemple » followed by a past participle is that misreading: per example
# is « rapporté au nombre d’exemples », « de chaque exemple », « pour chaque exemple ».
PER_EXAMPLE_PARTICIPLE_RE = re.compile(r"(?<!\w)par exemple \w+(?:é|ée|és|ées)(?!\w)", re.IGNORECASE)

# French, issue 40 (fifth reader). « juste » is read as "just" before "correct": the course says
# « correct » (« La tolérance de la ligne 7 est correcte »). Left alone: « juste avant », « juste
# après » (right before, right after), and a division that « tombe juste » (comes out even).
JUSTE_RE = re.compile(
    r"(?<![\w-])(?:(\w+)[ \u00a0])?(justes?)(?![\w-])(?![ \u00a0](?:avant|après)(?!\w))", re.IGNORECASE
)


def french_juste(text: str) -> list[str]:
    return [
        f"{match.group(2)!r} (reads as 'just'; write « correct »)"
        for match in JUSTE_RE.finditer(text)
        if not (match.group(1) or "").lower().startswith("tomb")
    ]


# "The tempting 1,000" is no French order: « Le 1 000 tentant ». Write « La réponse tentante, 1 000, … ».
TEMPTING_NUMBER_RE = re.compile(r"(?<![\w,])\d[\d \u00a0\u202f,]*[ \u00a0]tentante?s?(?!\w)", re.IGNORECASE)
# Lightning's and Transformers' Trainer keeps its name; a "trainer" in lower case is English in a
# French sentence (« les trainers de TRL »): « les sous-classes du Trainer ». Case-sensitive, so the
# class name is left alone, and so is a link's path (`trainer.py`, `#trainer-loss-history`).
TRAINER_RE = re.compile(r"(?<![\w.`/_#(-])trainers?(?![\w(_/=-]|\.\w)")
# « plus de mémoire qu’aucun worker n’en a »: the comparative with « aucun » and « ne » reads as a
# double negation; write « aucun worker n’a assez de mémoire ». Not « alors qu’aucun GPU n’en garde ».
COMPARATIVE_AUCUN_RE = re.compile(
    r"\b(?:plus|moins|davantage)\b[^.;:!?]*?\bqu[’']aucune?\b[^.;:!?]*?\bn[’']en\b", re.IGNORECASE
)


# French, issue 40 (sixth reader). « entraîner » takes an object, the model: "a larger batch will train
# faster" (« entraînera plus vite »), "train on isolated micro-batches" (« entraîner sur »), "you now train
# with" (« entraînez désormais avec ») are English. A form of the verb (not its participle, not the
# reflexive « s’entraîner » of a person) followed, after at most one adverb, by a preposition or an
# adverb of manner is that calque: write « entraîner le modèle plus vite », « entraîner le modèle sur ».
TRAIN_FORMS = "e es ent ez ons er era eras erez eront erait eraient ait aient ant".split()
TRAIN_FINITE = [form for form in TRAIN_FORMS if form != "er"]  # the infinitive after vous, nous is a person's
TRAIN_ADVERBS = (
    "maintenant désormais exactement encore ensuite alors donc aussi toujours déjà souvent seulement"
).split()
TRAIN_COMPLEMENTS = (
    "plus moins mieux vite bien mal longtemps correctement normalement tranquillement sur avec pendant durant "
    "en à au aux jusqu sans par dans"
).split()
TRAIN_WITHOUT_OBJECT_RE = re.compile(
    rf"(?<![\w’'])(?<!s’)(?<!s')(?<!se )(?<!m’)(?<!t’)"
    rf"entraîn(?:(?<!vous entraîn)(?<!nous entraîn)er|{alternation(TRAIN_FINITE)})"
    rf"(?![\w-])(?:[ \u00a0](?:{alternation(TRAIN_ADVERBS)}))?[ \u00a0](?:{alternation(TRAIN_COMPLEMENTS)})(?![\w’'-])",
    re.IGNORECASE,
)
# ...and its subject is what trains: a person, a script, a preset, a library. A layer, a batch, an
# optimizer or a recipe does not (« La BatchNorm ne peut pas entraîner le modèle », « SGD entraîne »,
# « Une recette a entraîné un CNN »): write
# « Impossible d’entraîner le modèle avec la BatchNorm », « avec SGD, le modèle apprend ». Not after
# à, avec, sans, de (« un modèle à BatchNorm est entraîné »: the subject is the model), and only the
# active forms (a layer « est entraînée »: its weights are). A configuration or a run is not trained
# either (« Une configuration déjà entraînée »): it is run, « exécutée », « lancée ».
TRAIN_NOT_SUBJECTS = (
    r"BatchNorm|GroupNorm|LayerNorm|normalisation|normalisations|couche|couches|lot|lots|optimiseur|optimiseurs"
    r"|scheduler|SGD|Adam|AdamW|recette|recettes"
)
TRAIN_WRONG_SUBJECT_RE = re.compile(
    rf"(?<![\w’'-])(?<!à )(?<!avec )(?<!sans )(?<!de )(?<!des )(?<!d’)(?:{TRAIN_NOT_SUBJECTS})(?![\w-])"
    rf"(?:[ \u00a0](?!(?:le|la|les|un|une|des|du|au|à|avec|de|qui|que|dont|où|si|et|ou|pour|afin|y|en|tout)(?![\w’'-]))"
    rf"[^\s,;:.?!«»]+){{0,6}}?"
    rf"[ \u00a0](?:ne[ \u00a0](?:peut|peuvent|pourra|pourrait)[ \u00a0]pas[ \u00a0])?"
    rf"(?:(?:a|ont|avait|avaient)[ \u00a0](?:ré)?entraîné|(?:ré)?entraîn(?:{alternation(TRAIN_FORMS)}))(?![\w-])",
    re.IGNORECASE,
)
TRAINED_RUN_RE = re.compile(
    r"(?<![\w-])(?:configuration|configurations|exécution|exécutions|réglages)(?![\w-])[^,;:.?!]{0,80}?"
    r"(?<![\w-])(?:ré)?entraîné(?:e|s|es)?(?![\w-])",
    re.IGNORECASE,
)
# "Keep/use/replace BatchNorm": as the object of a verb it takes its article, « utilise la BatchNorm »
# (glossary.yaml refuses the forms the fifth reader found; these are the verbs of the whole course).
BATCHNORM_VERBS = (
    "utilis util rempla répar réactiv rend gard gèl gel désactiv supprim conserv corrig évit retir enlev enlèv "
    "ajout fig laiss mett met"
).split()
BATCHNORM_OBJECT_RE = re.compile(
    rf"(?<![\w’'-])(?<!qu’)(?<!qu')(?<!que )(?:{alternation(BATCHNORM_VERBS)})\w*"
    rf"(?:[ \u00a0](?:pas|plus|jamais|donc|aussi|souvent|toujours))?[ \u00a0]BatchNorm(?![\w-])",
    re.IGNORECASE,
)
# "Test against a reference": one compares to it. « Testez contre », « vérifié contre »; « contre » stays
# for "versus" in a title or a table (« Pas contre exemples ») and for « échanger A contre B ».
TEST_AGAINST_RE = re.compile(
    r"(?<![\w-])(?:test|vérifi|valid|compar|confront|contrôl)\w*"
    r"(?:[ \u00a0][^\s.,;:?!()«»]+){0,6}?[ \u00a0]contre(?![\w-])",
    re.IGNORECASE,
)
# « propre » after its noun is "own" only before à (« le gradient propre à chaque micro-lot »); else
# it reads as "clean" (« fenêtres propres », « le gradient propre d’un micro-lot », « le test le plus
# propre »): write « des fenêtres complètes », « le gradient d’un micro-lot pris seul », « le plus
# simple ». Before its noun it is "own" (« sa propre taille ») and stays.
CLEAN_PROPRE_RE = re.compile(
    r"(?<![\w-])(?:gradients?|fenêtres?|tests?|coupures?|découpages?|mesures?|comparaisons?|résultats?|boucles?"
    r"|plus)[ \u00a0]propres?(?![\w-])(?![ \u00a0](?:à|au|aux)(?![\w-]))",
    re.IGNORECASE,
)
# A narration does not read a guide (« La narration … lit tout le guide »): « la version lue reprend … ».
NARRATION_READS_RE = re.compile(r"(?<![\w-])narrations?\b[^.;:?!]{0,40}?(?<![\w-])(?:lit|lisent|lira)(?![\w-])", re.I)
# « avant d’en traiter aucun » is an English "any": « avant d’en traiter un seul ».
BEFORE_ANY_RE = re.compile(
    r"(?<![\w-])avant[ \u00a0]d(?:e[ \u00a0]|’|')(?:en[ \u00a0])?\w+[ \u00a0]aucune?(?![\w-])", re.IGNORECASE
)
# « pas » the step, then « pas » the negation (« un pas d’optimisation, pas un micro-lot »): « et non ».
# Not a list of steps (« clipping, pas d’optimisation, pas du scheduler »).
STEP_NOT_RE = re.compile(
    r"(?<![\w-])pas[ \u00a0]d[’']optimisation,[ \u00a0]pas[ \u00a0](?!du[ \u00a0]|d[’']optimisation)", re.IGNORECASE
)
# Two « avec » in a row with no « et », « puis », « contre », « que », « si » between (« entraînent
# leur modèle avec des lots de 256 avec un taux d’apprentissage de 0,1 »): « des lots de 256 et un taux ».
DOUBLE_AVEC_STOP = r"(?!(?:et|ou|puis|contre|que|qu’|si|mais|comme|quand)(?![\w’'-]))"
DOUBLE_AVEC_RE = re.compile(
    rf"(?<![\w-])avec(?:[ \u00a0]{DOUBLE_AVEC_STOP}[^\s.,;:?!()«»]+){{0,5}}"
    rf"[ \u00a0]{DOUBLE_AVEC_STOP}(?!coïncid|concord|compar|confond|mêl)[^\s.,;:?!()«»]+"
    r"[ \u00a0]avec(?![\w-])(?![ \u00a0]momentum)",  # « SGD avec momentum » is one name
    re.IGNORECASE,
)
# Read on the text as written, code included: « Faut-il no_sync() » lacks its verb (« Faut-il utiliser
# no_sync() »); an attribute is not « posé » (« posez `model.accepts_loss_kwargs = False` »): « mettez …
# à False », « avec l’attribut à False ».
MISSING_VERB_RE = re.compile(r"(?<![\w-])Faut-il[ \u00a0]`?[\w.]+\(\)", re.IGNORECASE)
SET_ATTRIBUTE_RE = re.compile(
    r"(?<![\w-])pos(?:e|ez|er|ons|ent|ant)[ \u00a0]`[^`\n]*=[^`\n]*`|(?<![\w-])attribut[ \u00a0]posé(?![\w-])", re.I
)


def french_sixth_reader(raw: str, text: str) -> list[str]:
    """The sixth French reader's classes (issue 40): `raw` as written, `text` its prose."""
    checks = [
        (text, TRAIN_WITHOUT_OBJECT_RE, "« entraîner » takes an object: « entraîner le modèle … »"),
        (text, TRAIN_WRONG_SUBJECT_RE, "a layer, batch or optimizer does not train: « entraîner le modèle avec … »"),
        (text, TRAINED_RUN_RE, "a configuration or a run is not trained: « exécutée », « lancée »"),
        (text, BATCHNORM_OBJECT_RE, "as an object, « la BatchNorm »"),
        (text, TEST_AGAINST_RE, "one compares to a reference: « comparez à »"),
        (text, CLEAN_PROPRE_RE, "reads as 'clean': « complètes », « pris seul », « propre à »"),
        (text, NARRATION_READS_RE, "a narration does not read: « la version lue reprend »"),
        (text, BEFORE_ANY_RE, "« avant d’en traiter un seul »"),
        (text, STEP_NOT_RE, "« pas … pas »: write « et non »"),
        (text, DOUBLE_AVEC_RE, "two « avec » in a row: « … et … »"),
        (raw, MISSING_VERB_RE, "the verb is missing: « Faut-il utiliser … »"),
        (raw, SET_ATTRIBUTE_RE, "an attribute is set: « mettez … à False »"),
    ]
    return [f"{match.group()!r} ({advice})" for source, pattern, advice in checks for match in pattern.finditer(source)]


# French, issue 40 (seventh reader). A refused phrase still matches when a negation or an article is
# inserted into it: « GPU qui n’acceptent que 16 exemples » is « GPU qui acceptent », « normalisée par
# les tokens » is « normalisée par tokens ». « n’ » may stand before any word after the first; an
# article may follow « par ».
FRENCH_ARTICLE_AFTER = {"par"}


# Issue 40, eleventh French reader B: « erreurs de mémoire » slipped past the refused « erreur de
# mémoire », as each word was matched whole. French inflects nouns, adjectives, participles and verbs at
# the end of the word, so each word of a refused phrase is also matched with its plural, feminine or
# third-person plural ending (« erreurs », « divisée(s) », « déclenchent »).
def french_inflected(word: str) -> str:
    escaped = re.escape(word)
    if len(word) < 4 or not re.search(r"[a-zà-ÿ]$", word):  # de, le, la, ne, se, que stay as they are
        return escaped
    if word.endswith("é"):
        return escaped + "(?:e|s|es)?"
    if word.endswith("e"):
        return escaped + "(?:s|nt)?"
    if word.endswith("al"):
        return escaped[:-2] + "(?:al|aux)"
    if word[-1] in "sxz":
        return escaped
    return escaped + "(?:s|x|e|es)?" if word.endswith(("u", "eau")) else escaped + "s?"


def french_phrase_pattern(phrase: str, inflect: bool = True) -> re.Pattern:
    """`inflect`: False where the refused phrase is the singular of the right one (« mémoire
    d’activation », write « mémoire d’activations »)."""
    # Issue 40, twelfth French readers: « … » in a refused verb + preposition (« ajoute … dans ») stands
    # for up to six words between them (« ajoute le gradient de chaque micro-lot dans `.grad` »).
    bodies = []
    for part in phrase.split(" … "):
        words = part.split(" ")
        if not inflect:
            bodies.append(r"[ \u00a0]".join(map(re.escape, words)))
            continue
        body = french_inflected(words[0])
        for before, word in itertools.pairwise(words):
            article = r"(?:(?:les|le|la)[ \u00a0]|l[’'])?" if before.lower() in FRENCH_ARTICLE_AFTER else ""
            body += rf"[ \u00a0]{article}(?:n[’'])?{french_inflected(word)}"
        bodies.append(body)
    body = r"(?:[ \u00a0]+[^\s.;:?!,]+){0,6}[ \u00a0]+".join(bodies)
    return re.compile(rf"(?<![\w.`/_-])(?<!\w\(){body}(?![\w(_/=-]|\.\w)", re.IGNORECASE)


# Clipping scales down what the summed micro-batches contribute; « réduire un micro-lot » is to make it
# smaller (fewer examples): « réduit la contribution des micro-lots déjà sommés ».
CLIP_SHRINKS_RE = re.compile(
    r"(?<![\w-])rédui(?:t|sent|rait|raient|re|sant)[ \u00a0](?:les|des)[ \u00a0]"
    r"(?:(?:premiers|derniers|autres)[ \u00a0])?micro-lots(?![\w-])",
    re.IGNORECASE,
)
# « échanger A contre B » gives A to get B. The course's communication is what no_sync saves, so
# « échanger de la communication contre de la mémoire » says the opposite: « économiser de la
# communication au prix de la mémoire ». Communication as the price says so: « supplémentaire ».
TRADE_COMMUNICATION_RE = re.compile(
    r"(?<![\w-])échang\w*[ \u00a0](?:de[ \u00a0]la[ \u00a0]|la[ \u00a0])?communication"
    r"(?![ \u00a0]supplémentaire)[ \u00a0]contre(?![\w-])",
    re.IGNORECASE,
)
# A model is not « N fois trop grand »: its loss or its gradient is (« la perte des modèles … était N
# fois trop grande »). Masculine plural « trop grands » after « modèles », with no gradient or step between.
MODELS_TOO_BIG_RE = re.compile(
    r"(?<![\w-])modèles(?:(?!gradients?|pas(?![\w-])|pertes?|normes?)[^.;:?!]){0,80}?"
    r"fois[ \u00a0]trop[ \u00a0]grands(?![\w-])",
    re.IGNORECASE,
)
# BatchNorm in running prose takes its article, as the glossary's term « la BatchNorm »: as a subject
# (« La BatchNorm ne la respecte pas »), after « avec », « de », « que », « pour » (« les statistiques de
# la BatchNorm »). Bare it stays as a modifier (« couches BatchNorm », « réseau à BatchNorm », « ghost
# BatchNorm »), for its absence (« sans BatchNorm ni dropout », « pas de BatchNorm »), in a list of
# norms (« LayerNorm, GroupNorm et BatchNorm »), a table or a heading.
# Issue 40, eleventh French readers: the other norms take the article as BatchNorm does (« 24,1 % avec
# la GroupNorm contre 34,7 % avec la BatchNorm »), so the same check reads LayerNorm, GroupNorm, RMSNorm
# and InstanceNorm; a quiz option that is the name alone, and « balayage LayerNorm », stay bare.
# Issue 40, twelfth French readers: SyncBatchNorm was never read (« Batch » touches « Sync »), and a
# list of norms was bare-allowed wherever it stood, so « GroupNorm ou InstanceNorm remplacent la
# BatchNorm » and « Choisissez GroupNorm ou LayerNorm » got through. A list now takes the verdict of its
# first name: bare after a modifier or an absence (« couches LayerNorm, GroupNorm »), every name with
# its article after an article (« la GroupNorm ou l’InstanceNorm »), flagged as a subject or an object.
NORM_NAME = r"(?:Layer|Group|RMS|Instance|SyncBatch|Batch)Norm"
NOT_AFTER_A_NORM = "".join(rf"(?<!{name}Norm)" for name in ("Layer", "Group", "RMS", "Instance", "Batch"))
# Issue 40, eighth French reader: the list of words before it missed « mais BatchNorm », « dont
# BatchNorm », « qu’utilise BatchNorm », « Pourquoi BatchNorm »; so every bare BatchNorm is flagged
# unless an article, a determiner or one of the modifier or absence contexts above stands before it.
BATCHNORM_ALLOWED_BEFORE = (
    "la La une Une ghost Ghost à couche couches modules module courbes courbe réseau réseaux sans Sans "
    "Sync aucune cette balayage"
).split()
BATCHNORM_ARTICLES = {"la", "La", "une", "Une", "l’", "L’", "l'", "L'", "cette"}
BATCHNORM_BARE_RE = re.compile(rf"(?<![`\w(-])(?<!\*\*)(?<!\[){NORM_NAME}(?![\w`-])(?!\.\*\*)")
BATCHNORM_PREVIOUS_WORD_RE = re.compile(r"([\w’'-]+)[ \u00a0]*$")
BATCHNORM_IN_A_LIST_RE = re.compile(rf"{NORM_NAME}(?:,|[ \u00a0]+(?:et|ou))[ \u00a0]*$")
# A list of names in apposition stays bare: after a colon or in a parenthesis (« trois couches :
# LayerNorm, RMSNorm et BatchNorm », « (GroupNorm, BatchNorm gelée, SyncBatchNorm) »).
BATCHNORM_APPOSITION_RE = re.compile(r"(?:[:(]|\[|\w*Norm\w*`?,)[ \u00a0]*$")  # a list of class names too


UI_SENTENCE_END_RE = re.compile(r"[.?!»][ \u00a0]*$")


def batchnorm_without_article(text: str) -> list[str]:
    # A heading is read too (« Ce que la BatchNorm calcule », ninth French reader A); a table is not.
    prose_text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|"))
    found = []
    bare_allowed, last_end = False, -1  # the verdict of the norm before, for the next name of a list
    for match in BATCHNORM_BARE_RE.finditer(prose_text):
        before = prose_text[max(0, match.start() - 40) : match.start()]
        listed = BATCHNORM_IN_A_LIST_RE.search(before)
        if listed and last_end <= match.start() - len(before) + listed.start():
            bare_allowed = True  # the list opens with a name the check does not read (`code`, [link], **bold**)
        last_end = match.end()
        previous = BATCHNORM_PREVIOUS_WORD_RE.search(before)
        word = previous.group(1) if previous else ""
        if not previous and re.search(r"[’']$", before):
            word = before[-2:].lstrip()
        in_a_list, verdict = bool(BATCHNORM_IN_A_LIST_RE.search(before)), None
        if word in BATCHNORM_ARTICLES or before.endswith(("l’", "L’", "l'", "L'")):
            verdict = False  # its article; the next name of a list takes one too
        elif in_a_list:
            verdict = bare_allowed if bare_allowed else None
        elif (
            word in BATCHNORM_ALLOWED_BEFORE
            or re.search(r"(?:[Pp]as[ \u00a0]+de|^#+|\n#+)[ \u00a0]*$", before)
            or (BATCHNORM_APPOSITION_RE.search(before))
        ):
            verdict = True
        elif re.fullmatch(r"[ \u00a0]*", before.rsplit("\n", 1)[-1]):
            after = prose_text[match.end() :].split("\n", 1)[0]
            if not after.strip() or re.fullmatch(rf"(?:[ \u00a0]*(?:,|et|ou)[ \u00a0]+{NORM_NAME})+[ \u00a0]*", after):
                verdict = True  # a quiz option that is the layer's name alone, or names alone
        if verdict is None:
            bare_allowed = False
            found.append(f"{(before[-20:] + match.group()).strip()!r} (running prose: « la BatchNorm »)")
        else:
            bare_allowed = verdict
    return found


def french_seventh_reader(text: str) -> list[str]:
    """The seventh French reader's classes (issue 40), on the prose."""
    checks = [
        (CLIP_SHRINKS_RE, "clipping scales their contribution: « réduit la contribution des micro-lots »"),
        (TRADE_COMMUNICATION_RE, "no_sync saves communication: « économise la communication au prix de la mémoire »"),
        (MODELS_TOO_BIG_RE, "the loss is too large, not the model: « la perte des modèles … N fois trop grande »"),
    ]
    return [f"{match.group()!r} ({advice})" for pattern, advice in checks for match in pattern.finditer(text)]


# French, issue 40 (seventh reader). « derrière » is "behind" (« le lot derrière le gradient », « les
# nombres derrière cette figure »): write « le lot sur lequel est calculé le gradient », « les données de
# cette figure ». A scheduler that is stepped is not « avancé » (read as "advanced"): « qu’on fait avancer »,
# « le scheduler avance ». A GPU does not hold or accept examples (« 8 GPU qui tiennent 32 exemples »,
# « chaque GPU accepte un micro-lot »): « 8 GPU où tiennent 32 exemples ». « combien de fois le nombre
# minimal … faut-il » is English: « combien de pas faut-il, en multiples de S_min ». The digits data set
# has one name, « le jeu de données digits », and a model trained on it is « entraîné sur digits » (not
# « CNN de chiffres », « MLP des chiffres manuscrits », « CNN sur digits »). « exactitude » is accuracy
# only; the exactness of the accumulation is said with « exact » (« l’accumulation n’est plus exacte »).
# The setting is « la taille de lot effective » wherever a number is meant (« taille de lot effective 64 »,
# « la taille de lot effective ÷ N », « taille de lot effective B »); « le lot effectif » is the batch.
BEHIND_RE = re.compile(
    r"(?<![\w-])(?:lots?|exemples?|nombres?|données|ceux|celui|celles?|statistiques)[ \u00a0]derrière(?![\w-])",
    re.IGNORECASE,
)
STEPPED_RE = re.compile(
    r"(?<![\w-])schedulers?[ \u00a0](?:(?:est|sont|soit|a[ \u00a0]été)[ \u00a0])?avancés?(?![\w-])", re.IGNORECASE
)
GPU_HOLDS_RE = re.compile(
    r"(?<![\w-])GPU[ \u00a0](?:qui[ \u00a0](?:accept\w*|tien(?:t|nent))|accept(?:e|ent))(?![\w-])", re.IGNORECASE
)
HOW_MANY_TIMES_RE = re.compile(r"(?<![\w-])combien[ \u00a0]de[ \u00a0]fois[ \u00a0]le[ \u00a0]nombre(?![\w-])", re.I)
DIGITS_NAME_RE = re.compile(
    r"(?<![\w-])(?:CNN|MLP|modèle)s?[ \u00a0](?:de|des|sur)[ \u00a0](?:chiffres|digits)(?![\w-])", re.IGNORECASE
)
EXACTNESS_RE = re.compile(
    r"(?<![\w-])exception[^.;:?!]{0,20}?[ \u00a0]à[ \u00a0]l[’']exactitude(?![\w-])"
    r"|(?<![\w-])exactitude[ \u00a0]d(?:e[ \u00a0]l[’']|u[ \u00a0]|e[ \u00a0]la[ \u00a0]|es[ \u00a0])"
    r"(?:accumulation|gradients?|boucles?|calculs?|équivalence|résultats?)(?![\w-])",
    re.IGNORECASE,
)
EFFECTIVE_SIZE_RE = re.compile(
    r"(?<![\w-])[Ll]ots?[ \u00a0]effectifs?(?:[ \u00a0]\(?(?:\d|[A-Z](?![\w’'-])|÷|/|divisé|d[’']au[ \u00a0]plus)"
    r"|[ \u00a0]vaut[ \u00a0]\d)"
    r"|^[ \u00a0]*[Ll]ots?[ \u00a0]effectifs?[ \u00a0]*$"
    r"|[×÷][ \u00a0]lots?[ \u00a0]effectifs?(?![\w-])"
)


def french_seventh_reader_quizzes(text: str) -> list[str]:
    """The seventh French reader's classes (issue 40), on the prose."""
    checks = [
        (BEHIND_RE, "« derrière » is 'behind': « le lot sur lequel est calculé le gradient », « les données de »"),
        (STEPPED_RE, "reads as 'advanced': « qu’on fait avancer », « le scheduler avance »"),
        (GPU_HOLDS_RE, "a GPU holds nothing: « GPU où tiennent 32 exemples »"),
        (HOW_MANY_TIMES_RE, "« combien de pas faut-il, en multiples de S_min »"),
        (DIGITS_NAME_RE, "one name: « le jeu de données digits », « entraîné sur digits »"),
        (EXACTNESS_RE, "« exactitude » is accuracy: « l’accumulation n’est plus exacte »"),
        (EFFECTIVE_SIZE_RE, "a number is a size: « taille de lot effective »"),
    ]
    return [f"{match.group()!r} ({advice})" for pattern, advice in checks for match in pattern.finditer(text)]


# French, issue 40 (ninth readers). Elision: « que », « de », « le », « la », « ne », « se », « je », « me »,
# « te », « lorsque », « puisque », « jusque » lose their vowel before a vowel or a mute h (« tandis qu’un »,
# « d’un », « l’un », « n’est »), and « si » before « il(s) » (« s’il »). Not before a digit (« que 1 »),
# a single letter (« de A », « le N »), « onze », « oui », « ou » (« la ou les »), a y, an aspirated h
# (« le hook »), nor after a
# hyphen (« faites-le avant »). A code span is not read; a bare code name is (« tant qu’unscale_ »).
ELIDED_WORDS = "que lorsque puisque jusque de le la ne se je me te".split()
MUTE_H = "hyper histo heure habitu homog hétérog horizon hypoth".split()
NOT_ELIDED_BEFORE = "onze onzième oui ou".split()  # « la ou les lignes »
ELISION_RE = re.compile(
    rf"(?<![\w’'-])(?:{alternation(ELIDED_WORDS)})[ \u00a0]"  # one space: not where a code span stood
    rf"(?!(?:{alternation(NOT_ELIDED_BEFORE)})(?![\w]))"
    rf"(?:[aeiouéèêëàâîïôûæœ]|{alternation(MUTE_H)})\w",
    re.IGNORECASE,
)
SI_IL_RE = re.compile(r"(?<![\w’'-])si[ \u00a0]+ils?(?![\w’'-])", re.IGNORECASE)


def missing_elisions(text: str) -> list[str]:
    found = [match.group() for pattern in (ELISION_RE, SI_IL_RE) for match in pattern.finditer(text)]
    return [f"{match!r} (elide: « qu’un », « d’un », « l’un », « n’est », « s’il »)" for match in found]


# « à travers » is "across" (« à travers les exemples »): « sur les exemples du lot », « entre les GPU »;
# noun + « mémoire » compounds (« modèle mémoire », « droite mémoire », « sonde mémoire ») are « de
# mémoire », « de la mémoire »; « se compare(nt) à » is "how does X compare": « dans quel rapport »;
# « la voie publique » is the street (« l’API publique »); DDP « accroche » nothing (« déclenche … par
# des hooks »); "workloads" are « tâches ». « ^N » in prose is a superscript (« 0,999ᴺ »), and a
# parameter value with a decimal comma (« max_norm = 1,0 ») reads as a tuple: « `max_norm=1.0` ».
MEMORY_COMPOUND_RE = re.compile(
    r"(?<![\w-])(?:modèles?|droites?|mesures?|sondes?|pics?|instantanés?|outils?|événements?|écritures?)"
    r"[ \u00a0]mémoire(?![\w-])",
    re.IGNORECASE,
)
NINTH_READER_CHECKS = [
    (re.compile(r"(?<![\w-])à[ \u00a0]travers(?![\w-])", re.I), "'across': « sur les exemples du lot », « entre »"),
    (MEMORY_COMPOUND_RE, "noun + noun: « de mémoire », « de la mémoire »"),
    (re.compile(r"(?<![\w-])se[ \u00a0]compar(?:e|ent)(?![\w-])", re.I), "'compare': « dans quel rapport »"),
    (re.compile(r"(?<![\w-])voie[ \u00a0]publique(?![\w-])", re.I), "the street: « l’API publique »"),
    (re.compile(r"(?<![\w-])accroch(?:e|ent|er|é|ée)(?![\w-])", re.I), "'hooks': « déclenche … (par des hooks) »"),
    (re.compile(r"(?<![\w-])charges?[ \u00a0]de[ \u00a0]travail(?![\w-])", re.I), "'workloads': « tâches »"),
    (re.compile(r"(?<!`)\^[ \u00a0]*[\w(]"), "an exponent in prose: a superscript, « 0,999ᴺ »"),
    (re.compile(r"(?<![\w`])[a-z]+_[a-z_]+[ \u00a0]*=[ \u00a0]*\d+,\d"), "code in prose: « `max_norm=1.0` »"),
]


def french_ninth_readers(text: str) -> list[str]:
    found = missing_elisions(text)
    return found + [
        f"{m.group()!r} ({advice})" for pattern, advice in NINTH_READER_CHECKS for m in pattern.finditer(text)
    ]


# French, issue 40 (tenth readers). « charge(s) » alone for a benchmark's "workload" reads as a load (de
# calcul, électrique): « tâche ». Any form of « annuler » whose object is a scale, a factor, a division or
# a mean (« annulez d’abord la mise à l’échelle »): the refused list names phrases word for word, so a
# new conjugation or a new object passed it (the spoken summaries' two); this reads the verb in every
# form. A model's training runs that see data or are compared are « entraînements ». The library is
# « Transformers » in prose; the lower-case package name only with its version (« transformers 5.24.0 »).
WORKLOAD_RE = re.compile(
    r"(?<![\w’'-])(?:d[’']une|une|la|les|des|ces|cette|chaque|certaines|autres?)[ \u00a0]charges?"
    r"(?=[ \u00a0]à[ \u00a0]l[’']autre|[ \u00a0](?:étudiées|testées|différentes|de[ \u00a0]référence)(?![\w-]))",
    re.IGNORECASE,
)
ANNUL_SCALE_RE = re.compile(
    r"(?<![\w’'-])annul(?:e|es|ent|er|ez|ons|ant|é|ée|és|ées|era|erait|eraient)(?![\w’'-])"
    r"(?:[ \u00a0](?:d[’']abord|donc|ensuite|alors|aussi|bien))?[ \u00a0]"
    r"(?:la[ \u00a0]mise[ \u00a0]à[ \u00a0]l[’']échelle|le[ \u00a0]facteur|l[’']échelle|la[ \u00a0]division|"
    r"la[ \u00a0]moyenne|cette[ \u00a0]division|un[ \u00a0]facteur|ce[ \u00a0]facteur|"
    r"une[ \u00a0]erreur[ \u00a0]d[’']échelle)",
    re.IGNORECASE,
)
TRAINING_RUNS_RE = re.compile(
    r"(?<![\w’'-])(?:(?:trois|deux|quatre|ces|les)[ \u00a0]exécutions[ \u00a0]"
    r"(?:voient|finissent|convergent|atteignent)"
    r"|compar(?:ez|er|ons)[ \u00a0]les[ \u00a0](?:(?:deux|trois|quatre)[ \u00a0])?exécutions)(?![\w-])",
    re.IGNORECASE,
)
# The architecture stays lower case (« les transformers utilisent LayerNorm », « vision transformers »),
# and so does a GitHub reference (« transformers#24725 »): the library is the one after « de », « dans »,
# « modèle(s) ».
TRANSFORMERS_LOWER_RE = re.compile(
    r"(?<![\w’'-])(?:de|dans|modèles?)[ \u00a0]transformers(?![\w.`/_#\]-])(?![ \u00a0]+v?\d)"
)
# The course's name in a sentence of the site is a common noun (« du cours sur l’accumulation de
# gradient »): « du Cours sur … » is the English way of naming it. A title alone keeps its capital.
COURSE_NAME_RE = re.compile(r"(?<![\w’'-])(?:[Dd]u|[Ll]e|[Aa]u)[ \u00a0]Cours[ \u00a0]sur(?![\w-])")
# Issue 40, eleventh French reader A: « divisent encore la dernière fenêtre » slipped, as an adverb stood
# between the verb and its object; one adverb may now stand there.
# A window or a micro-batch is not divided, its loss is (« divisez la perte de la dernière fenêtre par sa
# taille réelle »); « le micro-lot est divisé par deux » halves its size and stays.
DIVIDED_WINDOW_RE = re.compile(
    r"(?<![\w’'-])(?:divis(?:e|es|ent|er|ez|ant|é|ée|és|ées)"
    r"(?:[ \u00a0](?:encore|toujours|donc|aussi|déjà|alors|ensuite|bien|seulement|simplement))?"
    r"[ \u00a0](?:la|chaque|une|cette|les)[ \u00a0]"
    r"(?:dernières?[ \u00a0])?(?:fenêtres?|micro-lots?)(?![\w-])"
    r"|(?:fenêtres?|micro-lots?)(?:[ \u00a0](?:incomplètes?|partielles?|courtes?))?[ \u00a0](?:est|sont)[ \u00a0]"
    r"divisée?s?(?![\w-])(?![ \u00a0]par[ \u00a0]deux))",
    re.IGNORECASE,
)


def divided_windows(text: str) -> list[str]:
    return [
        f"{m.group()!r} (the loss is divided: « la perte de la fenêtre est divisée »)"
        for m in DIVIDED_WINDOW_RE.finditer(text)
        if "perte" not in text[max(0, m.start() - 30) : m.start()]
    ]


TENTH_READER_CHECKS = [
    (WORKLOAD_RE, "'workload': « tâche »"),
    (ANNUL_SCALE_RE, "« annuler » reads as 'zero': « retirer le facteur d’échelle », « compenser »"),
    (TRAINING_RUNS_RE, "a model's run: « entraînements »"),
    (TRANSFORMERS_LOWER_RE, "the library: « Transformers »"),
]

# The gender check (glossary.yaml's french_gender). What it sees, for a noun of one gender: (1) the noun
# opening a sentence or clause with its determiner (« La planification … »), then within 80 characters
# of the same sentence the first « est / reste / a été … », followed by a participle of the other
# gender (« est exprimé »); (2) in the same sentence, with no determiner of the other gender between
# (« la longueur » may stand between, « le scheduler » may not), « qu’il » for a feminine noun (« qu’elle »
# for a masculine one), or « : il … » after a colon; (3) a sentence whose subject is the feminine noun,
# followed by one that opens « Il est / a été + participle » or « Il avance / va / dure / garde / reste ».
# What it cannot see: an object pronoun (« le fait avancer »), an elided « l’ », a pronoun two sentences
# on, a subject that is not at the start of its clause, a plural noun, an adjective far from its noun.
DETERMINERS = {
    "f": r"(?:La|Une|Sa|Cette|Toute[ \u00a0]la|Leur)",
    "m": r"(?:Le|Un|Son|Ce|Cet|Tout[ \u00a0]le|Leur)",
}
OTHER_DETERMINERS = {"f": r"(?:le|un|du|au|son|ce|cet|chaque|des?)", "m": r"(?:la|une|sa|cette)"}
WRONG_PARTICIPLE = {
    "f": r"(?:\w+é|écrit|prévu|défini|fini|compris|mis|pris|fait|réduit|dit)(?![\w’'-])",
    "m": r"\w+ée(?![\w’'-])",
}
WRONG_PRONOUN = {"f": r"il", "m": r"elle"}
BE = r"(?:est|était|sera|serait|reste|devient|a[ \u00a0]été)"
ADVERB = r"(?:[ \u00a0](?:déjà|bien|donc|alors|ensuite|aussi|toujours|trop|plus|entièrement|exactement))?"


def gender_patterns(noun: str, gender: str) -> list[re.Pattern]:
    word = rf"{re.escape(noun)}(?![\w-])"
    start = r"(?:^|(?<=[.!?:;])[ \u00a0]+|(?<=\n)|(?<=[-*] )|(?<=\d\. ))"
    other = OTHER_DETERMINERS[gender]
    no_other = rf"(?:(?!(?<![\w’'-]){other}[ \u00a0])[^.;!?\n])"
    # the subject's own clause: no new clause (« , puisque chaque perte a été divisée ») before the verb
    subordinators = r"(?:puisque|parce|car|où|qui|que|qu[’']|quand|lorsque|si|dont|chaque)"
    clause = rf"(?:(?!(?<![\w’'-]){subordinators}(?![\w-]))[^.;:!?\n])"
    wrong = WRONG_PRONOUN[gender]
    patterns = [
        re.compile(
            rf"{start}{DETERMINERS[gender]}[ \u00a0]{word}{clause}{{0,80}}?[ \u00a0]{BE}{ADVERB}[ \u00a0]"
            rf"{WRONG_PARTICIPLE[gender]}",
            re.M,
        ),
    ]
    if gender == "f":
        patterns.append(
            re.compile(
                rf"(?<![\w-]){word}[ \u00a0]{no_other}{{1,60}}?(?:(?<![\w’'-])qu[’']{wrong}|:[ \u00a0]+{wrong})"
                rf"(?![\w’'-])(?![ \u00a0](?:faut|y|suffit|vaut|s[’']agit|reste|"
                rf"est[ \u00a0](?:possible|vrai|faux|utile)))",
                re.IGNORECASE,
            )
        )
        patterns.append(
            re.compile(
                rf"{start}{DETERMINERS[gender]}[ \u00a0]{word}[^.!?\n]*[.!?][ \u00a0]+"
                rf"Il[ \u00a0](?:(?:est|a[ \u00a0]été){ADVERB}[ \u00a0]{WRONG_PARTICIPLE['f']}"
                rf"|(?:avance|va|dure|garde)(?![\w-]))",
                re.M,
            )
        )
    return patterns


GENDER_PATTERNS = [
    (noun, pattern) for noun, gender in GLOSSARY["french_gender"].items() for pattern in gender_patterns(noun, gender)
]


def french_gender_disagreements(text: str) -> list[str]:
    return [
        f"{match.group()[-60:]!r} ({noun} is {'feminine' if GLOSSARY['french_gender'][noun] == 'f' else 'masculine'})"
        for noun, pattern in GENDER_PATTERNS
        for match in pattern.finditer(text)
    ]


# Issue 40, eleventh French readers. (1) Every clip_grad_norm_ call runs; only the clipping « se
# déclenche » (reaches max_norm). « un appel qui ne se déclenche pas » reads as a call never made: « la
# norme dépasse max_norm lors de l’appel », « le clipping agit ». (2) An elliptic « …, seulement si … »
# with no verb of its own, the reader has to go back two clauses for what "only if" applies to: « n’est
# rentable que si … ». (3) One word for DeepSpeed's G: « rangs de parallélisme de données »
# (glossary.yaml's french_refused). A pronoun whose nearest antecedent is the wrong noun (« il » after
# « le micro-lot » for « le seuil ») cannot be checked; it is read for.
CALL_FIRES_RE = re.compile(
    r"(?<![\w-])(?:appels?(?:[ \u00a0]précédents?)?|aucun|celui|l’un[ \u00a0]d’eux)[ \u00a0]"
    r"(?:qui[ \u00a0])?(?:ne[ \u00a0])?se[ \u00a0]déclench\w*",
    re.IGNORECASE,
)
ELLIPTIC_ONLY_IF_RE = re.compile(r"(?<![Mm]ais)(?<![Ee]t),[ \u00a0]seulement[ \u00a0]si(?![\w-])")
ELEVENTH_READER_CHECKS = [
    (CALL_FIRES_RE, "every call runs; the clipping acts: « la norme dépasse max_norm lors de l’appel »"),
    (ELLIPTIC_ONLY_IF_RE, "a clause with no verb: « n’est rentable que si … »"),
]


def french_eleventh_readers(text: str) -> list[str]:
    return [f"{m.group()!r} ({advice})" for pattern, advice in ELEVENTH_READER_CHECKS for m in pattern.finditer(text)]


# Issue 40, twelfth French readers. (1) « en 5.24.0 »: French names a release with its article, « dans
# la 5.24.0 », as the same texts say « depuis la 4.46.0 ». (2) « dépassement » on its own is the
# glossary's short name for the out-of-memory error; a numeric overflow is « dépassement de capacité ».
# (3) « peser pour moitié » is the idiom (« chaque séquence pesant pour moitié »); « pèse pour » with
# anything else is the calque of "counts for" (glossary.yaml's entries were too wide and refused the
# idiom). (4) A pronoun after a feminine plural subject (« ces dépendances … ; avec un grand lot, ils
# relient ») where the next clause has no masculine plural noun of its own. (5) A parenthesis opened
# and never closed (or closed and never opened) in one paragraph or one string, outside code and
# math; an enumeration « 1) » or « a) » has no opening one.
EN_VERSION_RE = re.compile(r"(?<![\w-])[Ee]n[ \u00a0]+(?:(?:la[ \u00a0]+)?version[ \u00a0]+)?v?\d+\.\d+\.\d+(?![\w])")
OVERFLOW_RE = re.compile(
    r"(?<![\w-])dépassements?(?![ \u00a0]+de[ \u00a0]+(?:mémoire|capacité))[^.;:?!|]{0,40}?"
    r"(?:fp16|bf16|float16|demi-précision|numérique|virgule[ \u00a0]flottante)",
    re.IGNORECASE,
)
WEIGHS_FOR_RE = re.compile(
    r"(?<![\w-])p[eè]s(?:e|ent|ant|ait|aient|era|eront)[ \u00a0]+pour(?![ \u00a0]+(?:moitié|un[ \u00a0]+tiers|"
    r"un[ \u00a0]+quart|peu|beaucoup|autant)(?![\w-]))(?![\w-])",
    re.IGNORECASE,
)
FEMININE_PLURALS = (
    "dépendances statistiques pertes moyennes normes fenêtres versions valeurs couches exécutions "
    "estimations sommes divisions additions mises"
).split()
MASCULINE_PLURAL_RE = re.compile(r"(?<![\w-])(?:les|des|ces|leurs|ses|vos|nos)[ \u00a0]+\w+s(?![\w-])", re.IGNORECASE)
FEMININE_THEN_ILS_RE = re.compile(
    rf"(?<![\w-])(?:[Cc]es|[Ll]es)[ \u00a0]+(?:{'|'.join(FEMININE_PLURALS)})(?![\w-])[^.;:?!]{{0,120}}?"
    r"[;,][ \u00a0]+([^.;:?!]{0,80}?)(?<![\w’'-])ils(?![\w-])"
)
ENUMERATION_CLOSE_RE = re.compile(r"(?:^|(?<=^- )|(?<=[:;,.] ))(?:\d{1,2}|[a-z])\)(?= )", re.M)


def unbalanced_parentheses(raw: str) -> list[str]:
    """Read on the text before prose(), which also drops the glossary's allowed phrases."""
    text = "\n".join(prose_lines(raw))
    for pattern in (CODE_SPAN_RE, MATH_RE):
        text = pattern.sub(" ", text)
    found = []
    for line in text.splitlines():
        line = ENUMERATION_CLOSE_RE.sub(" ", line)
        if line.count("(") != line.count(")"):
            found.append(
                f"{line.strip()[:80]!r} (a parenthesis is not closed: {line.count('(')} ( and {line.count(')')} ))"
            )
    return found


# Issue 40, thirteenth French reader B: a ghost batch has one name, « lot fantôme », glossed once as
# « (des lots virtuels, …) »; « lots virtuels » anywhere else is a second name for it.
VIRTUAL_BATCH_RE = re.compile(r"(?<!\(des[ \u00a0])(?<![\w-])lots?[ \u00a0]virtuels?(?![\w-])", re.IGNORECASE)


def french_thirteenth_readers(text: str) -> list[str]:
    return [
        f"{m.group()!r} (« lots fantômes »; « (des lots virtuels, …) » glosses it once)"
        for m in VIRTUAL_BATCH_RE.finditer(text)
    ]


def french_twelfth_readers(raw: str, text: str) -> list[str]:
    found = [f"{m.group()!r} (« dans la 5.24.0 »)" for m in EN_VERSION_RE.finditer(text)]
    found += [f"{m.group()!r} (a numeric overflow: « dépassement de capacité »)" for m in OVERFLOW_RE.finditer(text)]
    found += [
        f"{m.group()!r} (« compte pour », « représente »; « pèse pour moitié » stays)"
        for m in WEIGHS_FOR_RE.finditer(text)
    ]
    found += [
        f"{m.group()!r} (a feminine plural antecedent: « elles »)"
        for m in FEMININE_THEN_ILS_RE.finditer(text)
        if not MASCULINE_PLURAL_RE.search(m.group(1))
    ]
    return found + unbalanced_parentheses(raw)


def french_tenth_readers(text: str, content: bool = True) -> list[str]:
    """The gender check everywhere; the others in the course's texts (the site's labs compare its
    « exécutions », and its « Annuler » cancels a run)."""
    found = french_gender_disagreements(text)
    found += [f"{m.group()!r} (« du cours sur … »)" for m in COURSE_NAME_RE.finditer(text)]
    found += divided_windows(text) if content else []
    return found + [
        f"{m.group()!r} ({advice})"
        for pattern, advice in TENTH_READER_CHECKS
        if content
        for m in pattern.finditer(text)
    ]


# Words of two or more capitals (a final s allowed): abbreviations and names. Not a line number (L125)
# nor a variable (B1).
ABBREVIATION_RE = re.compile(r"(?<![\w./#-])[A-Z][A-Z0-9]*[A-Z][A-Z0-9]*s?(?![\w./(-])")


def unexplained_abbreviations(raw: str) -> list[str]:
    """French, issue 40 (sixth reader): each abbreviation of this text that is neither a known name
    (glossary.yaml's french_known_abbreviations) nor spelled out, with french_abbreviations' words, within
    200 characters of its first use (« GAS (le nombre de pas d’accumulation) »). The abbreviations are
    read in prose; their explanation in the text as written, code spans included."""
    known, explained = set(GLOSSARY["french_known_abbreviations"]), GLOSSARY["french_abbreviations"]
    found, seen = [], set()
    for match in ABBREVIATION_RE.finditer(prose(raw, "fr")):
        word = match.group()
        name = word if word in known or word in explained else word.removesuffix("s")
        if name in known or name in seen:
            continue
        seen.add(name)
        first = re.search(rf"(?<![\w./#-]){word}(?![\w./(-])", raw)
        start, end = (first.start(), first.end()) if first else (0, len(raw))
        around = raw[max(start - 200, 0) : end + 200].lower()
        if name not in explained or explained[name].lower() not in around:
            found.append(f"{name!r} (spell it out: {explained.get(name, 'or list it in french_known_abbreviations')})")
    return found


# The object of भाग देना takes को: one of glossary.yaml's hindi_divide_objects, then one to three words
# and "से भाग दे…" ("हर loss 4 से भाग देकर"), or right away "भाग दे…" ("Accelerate loss भाग देता है").
# Not a noun that is itself the divisor: right before से ("weights के sum से भाग") or after a को that
# already marked the object ("gradients को loss scale से भाग"); and not across a postposition, a -कर
# participle or हुए ("sum लेकर N से भाग दें", "8 gradients जोड़ते हुए 4 से भाग दें" are right).
NOT_BETWEEN = "को ने का के की में पर से और या तक हुए हुआ हुई".split()
SPACE = "[ \u00a0]+"
DIVIDE_WITHOUT_KO_RE = re.compile(
    rf"(?<![\w{DEVANAGARI_LETTER}.`/_-])(?<!को )(?<!को\u00a0)(?:{alternation(GLOSSARY['hindi_divide_objects'])})"
    rf"(?![\w{DEVANAGARI_LETTER}_-])"
    rf"(?:(?:{SPACE}(?!(?:{alternation(NOT_BETWEEN)})(?![{DEVANAGARI_LETTER}]))(?![^\s]*कर(?![{DEVANAGARI_LETTER}]))"
    rf"[^\s,;:।()]+){{1,3}}{SPACE}से)?{SPACE}भाग{SPACE}(?:दे|दि|दी)",
    re.IGNORECASE,
)


INLINE_MATH_RE = re.compile(r"(?<!\$)\$[^$\n]+\$(?!\$)")

# Hindi, issue 40 (fourth reader): "भाग … होना" with one to three words between ("यह भाग पहले ही हो
# चुका", "भाग ठीक एक बार होना चाहिए") reads as running away, like the adjacent forms glossary.yaml
# refuses. Not when a word between is भाग देना's own verb ("भाग देना ज़रूरी होता है") or a
# postposition or copula that closes the phrase ("भाग में … होता", "भाग है, जो … होता"), nor an
# infinitive before होगा ("भाग वापस पलटना होगा": must).
DIVIDE_BECOMES_STOP = "को ने का के की में पर से और या है हैं था थे थी न नहीं".split()
DIVIDE_BECOMES_RE = re.compile(
    rf"(?<![{DEVANAGARI_LETTER}])भाग"
    rf"(?:{SPACE}(?!(?:{alternation(DIVIDE_BECOMES_STOP)})(?![{DEVANAGARI_LETTER}]))(?!दे|दि|दी)[^\s,;:।()]+(?<!ना)(?<!ने)(?<!नी)){{1,3}}"
    rf"{SPACE}(?:हो|होता|होती|होते|होना|होने|होगा|होगी|हुआ|हुए|हुई)(?![{DEVANAGARI_LETTER}])"
)


# Hindi, issue 40 (fifth reader): भाग देना is one verb, said with its divisor. भाग that no form of
# देना follows (only न, नहीं, भी, ही, तो may stand between) is a bare noun, "part, share": "library
# का भाग", "N से भाग छोड़ देता है", "कुल से भाग … हो सकता है", "N से भाग भी नहीं". A भाग देना
# whose clause names no divisor with से before it ("loss को कौन भाग देता है", "दोबारा भाग न दें")
# leaves the reader asking "by what?"; से before पहले, बाद, लेकर and the like is no divisor. And a
# divided quantity is विभाजित: "भाग दिए गए N losses", "… से भाग दिया गया sum" (a participle before
# its noun) reads as a share given away.
DIVIDE_PARTICLES = "न नहीं भी ही तो".split()
DIVIDE_VERB = rf"(?:{SPACE}(?:{alternation(DIVIDE_PARTICLES)})(?![{DEVANAGARI_LETTER}]))*{SPACE}(?:दे|दि|दी)"
DIVIDE_WORD = rf"(?<![{DEVANAGARI_LETTER}])भाग(?![{DEVANAGARI_LETTER}])"
DIVIDE_BARE_RE = re.compile(rf"{DIVIDE_WORD}(?!{DIVIDE_VERB})")
DIVIDE_VERB_RE = re.compile(rf"{DIVIDE_WORD}(?={DIVIDE_VERB})")
CLAUSE_START_RE = re.compile(r"[।॥?!;:,()\[\]|\n—–]")
NOT_A_DIVISOR = "पहले बाद लेकर ज़्यादा कम अलग बाहर ऊपर नीचे पीछे आगे बचने बड़ा बड़े छोटा छोटे".split()
DIVISOR_RE = re.compile(
    rf"(?<![{DEVANAGARI_LETTER}])(?:इस|उस|किस|जिस|इन|उन|किन|जिन|आप)?से(?![{DEVANAGARI_LETTER}])"
    rf"(?!{SPACE}(?:{alternation(NOT_A_DIVISOR)})(?![{DEVANAGARI_LETTER}]))"
)
DIVIDED_BEFORE_NOUN_RE = re.compile(
    rf"{DIVIDE_WORD}{SPACE}(?:दिया|दिए|दिये|दी){SPACE}(?:गया|गए|गये|गई|गयी|हुआ|हुए|हुई)"
    rf"{SPACE}(?!(?:है|हैं|था|थे|थी|थीं|हो|होगा|होगी|होंगे|होता|होती|होते|और|या|तो|भी|ही|नहीं|न|जा|जाता|जाती"
    rf"|जाते|जाए|चुका|चुकी|चुके|रहा|रहे|रही|था|जिससे|क्योंकि|जब|पर|लेकिन|वरना)(?![{DEVANAGARI_LETTER}]))"
    rf"(?=[^\s,;:।?!()|])"
)


def divide_without_divisor(text: str) -> list[str]:
    """भाग as a bare noun, भाग देना with no से-divisor in its clause, a भाग दिया गया before its noun.
    Read with inline math as a word ("$N$ से भाग दें"), which prose() blanks."""
    text = prose(INLINE_MATH_RE.sub(" x ", text), "hi")
    found = [
        f"{text[match.start() : match.end() + 30]!r} (भाग stands with its verb: 'N से भाग देना', or हिस्सा)"
        for match in DIVIDE_BARE_RE.finditer(text)
    ]
    for match in DIVIDE_VERB_RE.finditer(text):
        starts = [m.end() for m in CLAUSE_START_RE.finditer(text, 0, match.start())]
        clause = text[starts[-1] if starts else 0 : match.start()]
        if not DIVISOR_RE.search(clause):
            found.append(f"{(clause + text[match.start() : match.end() + 12]).strip()!r} (भाग देना says by what: 'N से')")
    found += [f"{m.group()!r} (a divided quantity is विभाजित)" for m in DIVIDED_BEFORE_NOUN_RE.finditer(text)]
    return found


# Hindi, issue 40 (fifth reader): the model is trained; a run, a preset, a lab, settings, a recipe
# or an optimizer (SGD, Adam) does not "train" ("labs … पर train करती हैं", "settings पहले train हो चुकी
# थीं", "run 230 पर train होता है", "SGD … अच्छी तरह train होता है"). One of these subjects, then
# up to ten words with no को (no object) and no clause break, then train होना or train करना, is
# flagged: write what is trained ("इस run में model … पर train होता है", "labs models को … train
# करती हैं").
TRAIN_SUBJECTS = (
    "run runs preset presets lab labs setting settings recipe recipes SGD Adam AdamW रन लैब सेटिंग्स रेसिपी"
).split()
# Not a noun before a postposition ("Adam के साथ train"), nor "train होने वाला" MLP, which names the model.
TRAIN_NOT_SUBJECT = "के की का से में पर तक".split()
TRAIN_VERB = "हो होता होती होते होने होना होगा होगी हुआ हुए हुई कर करता करती करते करना करने करे करें किया किए की".split()
TRAIN_WITHOUT_MODEL_RE = re.compile(
    rf"(?<![\w.`/-])(?:{alternation(TRAIN_SUBJECTS)})(?![\w(`/-])"
    rf"(?!{SPACE}(?:{alternation(TRAIN_NOT_SUBJECT)})(?![{DEVANAGARI_LETTER}]))"
    rf"(?:{SPACE}(?!को(?![{DEVANAGARI_LETTER}]))[^\s,;:।?!()|]+){{0,10}}?{SPACE}train{SPACE}"
    rf"(?:{alternation(TRAIN_VERB)})(?![{DEVANAGARI_LETTER}])(?!{SPACE}(?:वाला|वाले|वाली)(?![{DEVANAGARI_LETTER}]))"
)


# Hindi, issue 40 (sixth reader). "step" is the optimizer step; the stages of a procedure that an
# ordering question lists are चरण, as the UI's ordering widget says ("हर चरण को … स्थान दें"):
# "window के steps को सही क्रम में लगाएँ", "हर step को पिछले step का नतीजा चाहिए" mix the two.
STAGE_STEPS_RE = re.compile(
    rf"(?<![\w-])steps{SPACE}को(?:{SPACE}[^\s,;:।?!()|]+){{0,5}}?{SPACE}क्रम{SPACE}में"
    rf"|(?<![\w-])step{SPACE}(?:का|के){SPACE}नतीजा",
    re.IGNORECASE,
)
# Hindi, issue 40 (seventh reader). A micro-batch's share of the window is its वज़न (1/N) or its योगदान,
# never हिस्सा, which is also the "fixed हिस्सा" of memory: "micro-batch को उतना ही 1/N वज़न मिलता है",
# "पहले micro-batches का योगदान घट जाता है". "run का 1/N हिस्सा" and "कितना हिस्सा" stay.
MICRO_BATCH_SHARE_RE = re.compile(
    rf"(?<![\w-])micro-batch(?:es)?{SPACE}(?:को{SPACE}(?:भी{SPACE})?(?:उतना{SPACE}ही{SPACE})?(?:1/N{SPACE})?हिस्सा"
    rf"|(?:का|के){SPACE}हिस्स(?:ा|े))(?![{DEVANAGARI_LETTER}])",
    re.IGNORECASE,
)
# The denominator is भाजक (the glossary's term), never हर, which means "every" in hundreds of other places
# ("अनुपात का हर घटता है" first reads as "every part of the ratio falls").
DENOMINATOR_HAR_RE = re.compile(rf"(?:अंश|अनुपात|भिन्न){SPACE}(?:और|का|के){SPACE}हर(?![{DEVANAGARI_LETTER}])")
# भाजक is the denominator of a mean: "B/G का भाजक" reads as G, the denominator of B/G. A number that divides
# B/G is one that "B/G को पूरा-पूरा विभाजित करे".
DIVISOR_BHAJAK_RE = re.compile(rf"(?<![\w/])(?:[A-Za-z]+/[A-Za-z]+|\d+){SPACE}(?:का|के|की){SPACE}भाजक")
# "couple" is not जोड़ना, which in this course adds ("gradients जुड़ते हैं"): "BatchNorm samples को
# आपस में जोड़ देता है" reads as "adds the samples together". Write "… को एक-दूसरे पर निर्भर बना देता है".
COUPLE_RE = re.compile(
    rf"(?:आपस{SPACE}में|(?<![\w-])(?:samples|images|sample|सैंपल|सैंपलों){SPACE}को){SPACE}जोड़(?!कर)[{DEVANAGARI_LETTER}]*"
    rf"|जोड़ने{SPACE}(?:वाला|वाले|वाली){SPACE}losses?",
    re.IGNORECASE,
)
# The arithmetic mean over samples, tokens or micro-batches is the glossary's mean: "64 samples पर
# average किया हुआ gradient", "N micro-batch gradients का average", "mean losses का औसत", "औसत
# gradient" name it twice. Left alone: DDP's average over GPUs, replicas or ranks, moving and running
# averages, Adam's "अब तक का औसत", औसतन (on average), and the spoken summaries, whose voice says औसत
# (मीन, the English word said aloud, is "fish").
AVERAGE = r"(?:average|averages|averaged|औसत|औसतों)(?![\w-])"
MEAN_AS_AVERAGE_RE = re.compile(
    rf"(?<![\w-])(?:losses|loss|samples|examples|tokens|terms|estimates|means|औसतों|gradients|gradient)"
    rf"{SPACE}(?:का|के|पर){SPACE}{AVERAGE}"
    rf"|(?<![\w-])(?:पर{SPACE}average{SPACE}(?:किया|होता|होती|करके|कर))"
    rf"|(?<![\w-])(?:औसत|average){SPACE}gradient(?![\w-])"
    rf"|(?<![\w-])(?:mean|means){SPACE}(?:का|के){SPACE}{AVERAGE}"
    rf"|(?<![\w-])दोनों{SPACE}{AVERAGE}"
    rf"|(?<![\w-])window{SPACE}(?:का|के){SPACE}{AVERAGE}",
    re.IGNORECASE,
)
# Not a moving or running average (EMA, Adam's "अब तक का औसत"): औसत is kept for those.
# Hindi, issue 40 (eleventh readers): DDP's average over GPUs, replicas or ranks was left alone here too,
# so one exam question said "gradients का औसत" in an option and "gradients का mean" in its explanation.
# DDP's all-reduce takes the mean, as every other mean in the course: "sum या mean?", "mean gradient".
NOT_MEAN_BEFORE = re.compile(r"moving|running|अब तक|EMA", re.IGNORECASE)
DDP_AVERAGE_RE = re.compile(
    rf"(?<![\w-])(?:sum|जोड़|योग){SPACE}या{SPACE}औसत(?![{DEVANAGARI_LETTER}])"
    rf"|(?<![{DEVANAGARI_LETTER}])औसत{SPACE}निकाल(?:ा|े|ी){SPACE}(?:हुआ|हुए|हुई){SPACE}gradients?"
    rf"|(?<![{DEVANAGARI_LETTER}])गुणक{SPACE}औसत{SPACE}में",
    re.IGNORECASE,
)


def averages_for_the_mean(text: str) -> list[str]:
    return [
        f"{match.group()!r} (the mean over samples, tokens, micro-batches or ranks is the glossary's mean)"
        for match in MEAN_AS_AVERAGE_RE.finditer(text)
        if not NOT_MEAN_BEFORE.search(text[max(0, match.start() - 30) : match.start()])
    ] + [f"{match.group()!r} (DDP's all-reduce takes the mean)" for match in DDP_AVERAGE_RE.finditer(text)]


# Hindi, issue 40 (eleventh readers): curves that coincide "एक ही रेखा पर रहती हैं"; the refused list
# named the wordings readers had found (एक-दूसरे पर पड़ती, एक हो जाती), and the UI's "curves लगभग एक जैसी
# रहती हैं" and the guides' "curves … । वे … एक जैसी हैं" (alike, perhaps apart) slipped past it. Curves,
# then within a sentence or the next one, एक जैसी, are refused.
CURVES_ALIKE_RE = re.compile(
    rf"(?<![\w-])(?:curves|कर्व्स)[^\n।;:]{{0,100}}(?:।[^\n।;:]{{0,60}})?(?<![{DEVANAGARI_LETTER}])एक{SPACE}जैसी"
    rf"(?![{DEVANAGARI_LETTER}])",
    re.IGNORECASE,
)
# Hindi, issue 40 (twelfth reader B): गिनती is the token count (`num_items_in_batch`, "tokens की गिनती");
# other counts (GPUs, passes, calls, ghost batches, ranks, processes, steps) are a संख्या. The quizzes
# had "GPUs की गिनती" beside "GPUs की संख्या" in one file.
OTHER_COUNT_RE = re.compile(
    rf"(?<![\w-])(?:GPUs?|passes|calls|(?:ghost{SPACE})?batches|ranks|processes|steps|स्टेप|स्टेपों|रैंक|रैंकों"
    rf"|जीपीयू|प्रोसेस)(?:{SPACE}कुल)?{SPACE}की{SPACE}(?:कुल{SPACE})?गिनती",
    re.IGNORECASE,
)
# A compound read as one noun: "gradient accumulation factor से … विभाजित" is first read as the course's
# "gradient accumulation" factor, and the verb loses its subject. Write "gradient, accumulation factor N से".
COMPOUND_SUBJECT_RE = re.compile(
    rf"(?<![\w-])gradients?{SPACE}accumulation{SPACE}factor{SPACE}(?:N{SPACE})?से(?:{SPACE}[^\s,;:।]+){{0,3}}?"
    rf"{SPACE}(?:विभाजित|भाग)",
    re.IGNORECASE,
)
# In a spoken summary गिनती is the token count; N is "माइक्रो-बैचों की संख्या", and a bare "इस गिनती से
# भाग" (hindi_refused_in_summaries) names no count a listener can find.


# Backward passes do not add up; their gradients do: "N backward passes ख़ाली buffers में जुड़ते हैं"
# is "N backward passes के gradients …".
PASSES_ADD_RE = re.compile(
    rf"(?:backward{SPACE}passes?|backward,{SPACE}जो)(?!{SPACE}के{SPACE}gradients?)(?:{SPACE}[^\s,;:।?!()|]+){{0,4}}?{SPACE}जुड़(?:ते|ता|ती)"
    rf"(?![{DEVANAGARI_LETTER}])",
    re.IGNORECASE,
)


# Hindi, issue 40 (sixth reader): a window is not divided; its loss is ("आख़िरी window के loss को उसके
# असली आकार से भाग दें"). "window को … से भाग" and "window … से विभाजित होती है" (the window as the
# divided thing) are flagged; "window के tokens से विभाजित sum" (the window's count as divisor) is not.
WINDOW_WORDS = r"(?:window|windows|विंडो)(?:ों|ें)?"
WORD_IN_CLAUSE = r"[^\s,;:।()|]+"
NOT_AFTER_WINDOW = "के का की में पर से और या".split()
WINDOW_DIVIDED_RE = re.compile(
    rf"(?<![\w{DEVANAGARI_LETTER}.`/_-]){WINDOW_WORDS}{SPACE}को(?:{SPACE}{WORD_IN_CLAUSE}){{0,5}}?{SPACE}से(?:{SPACE}(?:ही|भी))?{SPACE}भाग"
    rf"|(?<![\w{DEVANAGARI_LETTER}.`/_-]){WINDOW_WORDS}"
    rf"(?!{SPACE}(?:{alternation(NOT_AFTER_WINDOW)})(?![{DEVANAGARI_LETTER}]))"
    rf"(?:{SPACE}{WORD_IN_CLAUSE}){{0,4}}?{SPACE}से{SPACE}विभाजित{SPACE}(?:हो|हुई|हुआ)",
    re.IGNORECASE,
)

# Hindi, issue 40 (sixth reader): in a spoken summary the data point is सैंपल (the glossary's sample);
# उदाहरण is an illustration only: "उदाहरण के लिए", "एक छोटा उदाहरण", "हल सहित उदाहरण".
SPOKEN_EXAMPLE_RE = re.compile(
    rf"(?<![{DEVANAGARI_LETTER}])(?<!छोटा )(?<!हुआ )(?<!सहित )उदाहरण(?:ों)?(?![{DEVANAGARI_LETTER}])(?! के लिए)"
)

# Hindi, issue 40 (sixth reader): ASCII single quotes around Hindi words ('आगे'); the guides quote with
# “ ” or "…".
# Ninth readers: a title in English ('Train longer, generalize better') has no Devanagari to match, so
# a quoted title (a capital, then a space) is refused too; 'mean' or 'sum' in code keeps its quotes.
HINDI_SINGLE_QUOTES_RE = re.compile(rf"(?<![\w'])'(?:[^'\n]*[{DEVANAGARI}][^'\n]*|[A-Z][^'\n]* [^'\n]*)'(?![\w'])")
# Hindi, issue 40 (eighth readers, the rest): one kind of quotation mark in Hindi prose, “ ”, for a
# quoted word and a title alike (content/AUTHORING.md); straight double quotes ("सटीक", "Accurate,
# Large Minibatch SGD") are refused. Left alone: code spans and blocks (prose() drops them), a keyword
# argument quoted after = (loss_type = "ForCausalLM"), a guide's tab labels (=== "PyTorch"), and the
# front matter, whose values YAML quotes.
HINDI_STRAIGHT_QUOTES_RE = re.compile(r'(?<![\w=\\])(?<!= )"(?=\S)[^"\n]*[^\s"]"(?![\w])')
TAB_LABEL_RE = re.compile(r'(?m)^[ \t]*=== ".*$')
# What is quoted as words: Hindi, or a title (a capital, then a space); "nccl" or "mean" in a code
# comment is a value from the code.
QUOTED_WORDS_RE = re.compile(rf'^"(?:.*[{DEVANAGARI}]|[A-Z][^"]* )')


def hindi_straight_quotes(raw: str) -> list[str]:
    body = raw.split("\n---\n", 1)[1] if raw.startswith("---\n") else raw
    text = prose(TAB_LABEL_RE.sub(" ", body), "hi")
    return [
        f"{match.group()!r} (quote with “ ”)"
        for match in HINDI_STRAIGHT_QUOTES_RE.finditer(text)
        if QUOTED_WORDS_RE.search(match.group())
    ]


def divide_without_ko(text: str) -> list[str]:
    """Read with inline math as a word ("उसका loss $N$ से भाग दिया"), which prose() blanks."""
    text = prose(INLINE_MATH_RE.sub(" x ", text), "hi")
    return [f"{match.group()!r} (the object of भाग देना takes को)" for match in DIVIDE_WITHOUT_KO_RE.finditer(text)]


# English, issue 40 (fourth reader): under the mean of micro-batch means each sequence steers the same
# share of the update; what weighs ten times more is each scored token of the short one. A sample,
# sequence or example as the subject of "weighs … times" teaches the wrong unit ("an 11-token sample
# weighed about 10 times a 101-token one"); "each scored token of an 11-token sequence weighed" is right.
WHOLE_SAMPLE_WEIGHT_RE = {
    "en": re.compile(
        r"(?<!\bof )(?<!\bof the )\b(?:an?|the|each|one) (?:[\w.,]+-token |short |long |shorter |longer )"
        r"(?:sample|sequence|example)s? (?:weigh|weighs|weighed|counts?|counted|pulls?|pulled)\b"
        r"[^.;:]*?\b(?:times|fold)\b",
        re.IGNORECASE,
    ),
    "fr": re.compile(
        r"(?<![d’'])\bune? (?:exemple|séquence|micro-lot) de [\d\s\u202f]+tokens (?:pes|compt)\w*[^.;:]*?\bfois\b",
        re.IGNORECASE,
    ),
    "hi": re.compile(r"tokens[ \u00a0]वाल[ेीा][ \u00a0](?:sample|sequence)s?[ \u00a0](?:का|की)[ \u00a0]वज़न"),
}


def whole_sample_weights(text: str, lang: str) -> list[str]:
    return [
        f"{match.group()!r} (each scored token weighs more, not the sample)"
        for match in WHOLE_SAMPLE_WEIGHT_RE[lang].finditer(text)
    ]


# Hindi, issue 40 (seventh reader): जोड़ is the sum in this course; "queries[i] का जोड़ keys[i]"
# reads as "the sum of queries[i] is keys[i]". A partner is जोड़ीदार.
PAIR_SUM_RE = re.compile(r"का[ \u00a0]जोड़[ \u00a0]`?[A-Za-z_]\w*\[")

# Hindi, issue 40 (eighth readers): "equal up to rounding" is not "तक बराबर", which first reads as
# "equal until": any word for a small discrepancy (or a relative size) before तक and a word for
# equal or right. `hindi_refused` names the nouns; this catches the rest ("1e-6 relative तक बराबर").
UP_TO_RE = re.compile(
    rf"(?<![\w{DEVANAGARI_LETTER}])(?:\S+){SPACE}तक{SPACE}(?:बिल्कुल{SPACE})?(?:बराबर|एक{SPACE}जैस[ीेा]|सही|मिलत[ेीा])"
    rf"(?![{DEVANAGARI_LETTER}])"
)
UP_TO_NOUNS = {"rounding", "order", "relative", "क्रम", "फ़र्क़", "राउंडिंग", "अंतर", "precision", "tolerance"}


def up_to_calques(text: str) -> list[str]:
    return [
        f"{match.group()!r} (तक reads as 'until': write '… के फ़र्क़ को छोड़कर बराबर')"
        for match in UP_TO_RE.finditer(text)
        if match.group().split()[0] in UP_TO_NOUNS
    ]


# Hindi, issue 40 (eighth readers): one word for an average, औसत; Latin "average" only in the names
# "moving average" and "running average(s)". A multiplier is a गुणक; "factor" only in "accumulation
# factor" (N) and the scaler's "scale factor".
AVERAGE_RE = re.compile(r"(?<![\w.`/_-])(?<!moving )(?<!running )(?<!Running )averag(?:e|es|ed|ing)\b", re.IGNORECASE)
# Tenth readers: "Factor 1/N" opened an explanation; the check now reads the word in any case.
FACTOR_RE = re.compile(r"(?<![\w.`/_-])(?<!accumulation )factors?\b", re.IGNORECASE)


# Hindi, issue 40 (seventh reader): a lower-case name from code or a library (transformers,
# bfloat16, torchtune) opens no sentence, heading or list item of a guide (rules.hi): reword. A name
# with a capital inside (nanoGPT) is a proper name; a backticked call is the exam's business.
CODE_OPENING_RE = re.compile(
    r"(?m)(?:^(?:#{1,6}[ \t]+|[-*+][ \t]+|\d+\.[ \t]+|>[ \t]*)?|[।?!][ \t]+)(?:\*\*|“|\[)?"
    r"([a-z][a-z0-9-]*(?:\.\d+)?)(?![\w(.`_-])"
)


# Hindi, issue 40 (ninth readers): the rule reached the guides only. A quiz's or the exam's prompt,
# hint or explanation opens no sentence with code either: a call (backward()), a keyword (weight=) or
# a lower-case name (loss / N): 43 on 74471db (26 explanations, 12 prompts, 5 hints). Options and
# ordering items are labels: left alone. A UI string is read from its second sentence on
# (PO_CODE_OPENING_RE), since a label may be a name: 2.
QUIZ_CODE_OPENING_RE = re.compile(r"(?:^|[।?!][ \t]+)(?:\*\*|“)?`?([a-z_][a-z0-9_.]*(?:\(\)|=)?)(?![\w(.`=-])")
PO_CODE_OPENING_RE = re.compile(r"[।?!][ \t]+(?:\*\*|“)?`?([a-z_][a-z0-9_.]*(?:\(\)|=)?)(?![\w(.`=-])")
QUIZ_SENTENCE_KEYS = {"prompt", "hint", "explanation"}


def quiz_code_openings(text: str) -> list[str]:
    return [match.group(1) for match in QUIZ_CODE_OPENING_RE.finditer(text)]


def localized_by_key(node, lang: str, key: str = ""):
    """(key, text) of every text of one language in a quiz file, key being the field that holds it."""
    if isinstance(node, dict):
        if set(LANGUAGES) <= node.keys():
            yield key, str(node[lang])
            return
        for name, value in node.items():
            yield from localized_by_key(value, lang, name if name not in ("text",) else key)
    elif isinstance(node, list):
        for value in node:
            yield from localized_by_key(value, lang, key)


# Hindi, issue 40 (ninth readers): a comparison with से ("उससे जल्दी") finished as an equative ("जितना"):
# write "उतनी जल्दी … जितनी जल्दी", or keep से and drop जितना.
MIXED_COMPARISON_RE = re.compile(
    rf"(?<![{DEVANAGARI_LETTER}])(?:उससे|इससे|जिससे)[ \u00a0][^।;:?!]{{0,80}}?"
    rf"(?<![{DEVANAGARI_LETTER}])जितन[ाीे](?![{DEVANAGARI_LETTER}])"
)
# A name from code that the glossary genders (`train.py`, feminine) agrees as a noun: its backticks
# are dropped before the agreement check reads the sentence.
GENDERED_CODE_SPAN_RE = re.compile(rf"`({alternation(HINDI_GENDER)})`")


def code_openings(source: str) -> list[str]:
    """The names that open a sentence of a Hindi guide's body (prose, front matter left out)."""
    body = source.split("\n---\n", 1)[1] if source.startswith("---\n") else source
    text = HEADING_ID_RE.sub(" ", "\n".join(prose_lines(body)))
    return [match.group(1) for match in CODE_OPENING_RE.finditer(text)]


def violations(text: str, lang: str, spoken: bool = False, content: bool = True) -> list[str]:
    """`spoken`: a spoken summary, where Hindi writes the English terms in Devanagari so that the
    voice says them (content/AUTHORING.md): the Latin-script rule is not checked there. `content`:
    the course's own texts, not the site's words (where « compte » is an account)."""
    raw, text = text, prose(text, lang)
    found = []
    found += whole_sample_weights(text, lang)
    for term in GLOSSARY["terms"]:
        for variant in [] if spoken and lang == "hi" else term.get("forbidden", {}).get(lang, []):
            if word_pattern(variant).search(text):
                found.append(f"{variant!r} (write {term[lang]!r})")
    if lang == "fr":
        refused = GLOSSARY["french_refused"] | (GLOSSARY["french_refused_in_content"] if content else {})
        for phrase, advice in refused.items():
            if french_phrase_pattern(phrase, inflect=not advice.startswith(phrase)).search(text):
                found.append(f"{phrase!r} (write {advice!r})")
        found += [
            f"{match.group()!r} (reads as 'for example'; write « rapporté au nombre d’exemples … »)"
            for match in PER_EXAMPLE_PARTICIPLE_RE.finditer(text)
        ]
        found += french_juste(text)
        found += [
            f"{match.group()!r} (English word order; write « la réponse tentante, … »)"
            for match in TEMPTING_NUMBER_RE.finditer(text)
        ]
        found += [
            f"{match.group()!r} (English; name the class, « le Trainer », or « classe d’entraînement »)"
            for match in TRAINER_RE.finditer(text)
        ]
        found += [
            f"{match.group()!r} (reads as a double negation; write « aucun … n’a assez de »)"
            for match in COMPARATIVE_AUCUN_RE.finditer(text)
        ]
        found += french_sixth_reader(raw, text)
        found += french_seventh_reader(text)
        # The site's labels and preset titles name the layer bare, as a table or a heading; its sentences
        # (a string that ends as a sentence ends) take the article (issue 40, ninth French reader B).
        if content or UI_SENTENCE_END_RE.search(text):
            found += batchnorm_without_article(text)
        found += french_seventh_reader_quizzes(text)
        found += french_ninth_readers(text)
        found += french_tenth_readers(text, content)
        found += french_eleventh_readers(text)
        found += french_twelfth_readers(raw, text)
        found += french_thirteenth_readers(text)
    if lang == "hi":
        for stem, spelling in GLOSSARY["hindi_spelling"].items():
            if stem_pattern(stem).search(text):
                found.append(f"{stem!r} (write {spelling!r})")
        for word, spelling in GLOSSARY["hindi_spelling_words"].items():
            if whole_word_pattern(word).search(text):
                found.append(f"{word!r} (write {spelling!r})")
        for phrase, advice in GLOSSARY["hindi_refused"].items():
            if refused_pattern(phrase).search(text):
                found.append(f"{phrase!r} (write {advice!r})")
        for phrase, advice in GLOSSARY["hindi_refused_in_content"].items() if content and not spoken else ():
            if refused_pattern(phrase).search(text):
                found.append(f"{phrase!r} (write {advice!r})")
        for phrase, advice in GLOSSARY["hindi_refused_in_summaries"].items() if spoken else ():
            if refused_pattern(phrase).search(text):
                found.append(f"{phrase!r} (the spoken summaries say {advice!r})")
        found += [
            f"{match.group()!r} (the window's loss is divided: 'window के loss को … से भाग')"
            for match in WINDOW_DIVIDED_RE.finditer(INLINE_MATH_RE.sub(" x ", text))
        ]
        if spoken:
            found += [
                f"{match.group()!r} (a data point is सैंपल; उदाहरण is an illustration)"
                for match in SPOKEN_EXAMPLE_RE.finditer(text)
            ]
        found += [f"{match.group()!r} (quote with “ ”)" for match in HINDI_SINGLE_QUOTES_RE.finditer(text)]
        found += hindi_straight_quotes(raw)
        found += divide_without_ko(raw)
        found += divide_without_divisor(raw)
        found += [
            f"{match.group()!r} (the model is trained, not the run, preset, lab or settings)"
            for match in TRAIN_WITHOUT_MODEL_RE.finditer(text)
        ]
        found += [
            f"{match.group()!r} (reads as running away; write भाग दिया जाना)"
            for match in DIVIDE_BECOMES_RE.finditer(text)
        ]
        found += [f"{match.group()!r} (a stage of a procedure is a चरण)" for match in STAGE_STEPS_RE.finditer(text)]
        found += [f"{match.group()!r} (couple: एक-दूसरे पर निर्भर बनाना)" for match in COUPLE_RE.finditer(text)]
        found += [f"{match.group()!r} (their gradients add up)" for match in PASSES_ADD_RE.finditer(text)]
        found += [f"{match.group()!r} (जोड़ is the sum; a partner is जोड़ीदार)" for match in PAIR_SUM_RE.finditer(text)]
        found += up_to_calques(text)
        found += [
            f"{match.group()!r} (curves that coincide: एक ही रेखा पर रहती हैं)" for match in CURVES_ALIKE_RE.finditer(text)
        ]
        found += [
            f"{match.group()!r} (गिनती is the token count; other counts are a संख्या)"
            for match in OTHER_COUNT_RE.finditer(text)
        ]
        found += [
            f"{match.group()!r} (read as one noun: 'gradient, accumulation factor N से')"
            for match in COMPOUND_SUBJECT_RE.finditer(text)
        ]
        if content and not spoken:
            found += [f"{match.group()!r} (write औसत)" for match in AVERAGE_RE.finditer(text)]
            found += [
                f"{match.group()!r} (write गुणक, or accumulation factor for N)" for match in FACTOR_RE.finditer(text)
            ]

        found += [
            f"{match.group()!r} (a micro-batch's share is its वज़न or योगदान)"
            for match in MICRO_BATCH_SHARE_RE.finditer(text)
        ]
        found += [f"{match.group()!r} (the denominator is भाजक)" for match in DENOMINATOR_HAR_RE.finditer(text)]
        found += [
            f"{match.group()!r} (a divisor: 'जो … को पूरा-पूरा विभाजित करे')" for match in DIVISOR_BHAJAK_RE.finditer(text)
        ]
        if not spoken:
            found += averages_for_the_mean(text)
        if not content:
            for phrase, advice in GLOSSARY["hindi_refused_in_ui"].items():
                if refused_pattern(phrase).search(text):
                    found.append(f"{phrase!r} (the site's word: {advice!r})")
        found += [f"{month!r} (the Hindi month name)" for month in ENGLISH_MONTH_RE.findall(text)]
        if PRECOMPOSED_NUKTA_RE.search(text):
            found.append("a precomposed nukta letter (use the combining nukta U+093C)")
        found += disagreements(prose(GENDERED_CODE_SPAN_RE.sub(r"\1", raw), lang), spoken)
        found += [
            f"{match.group()!r} (से compares, जितना equates: write उतना … जितना)"
            for match in MIXED_COMPARISON_RE.finditer(text)
        ]
        if not spoken:
            found += ing_subject_disagreements(text)
        found += ie_imperatives(text)
    return found


def localized_strings(node, lang: str):
    """Every text of one language in a quiz file: titles, prompts, options, hints, explanations."""
    if isinstance(node, dict):
        if set(LANGUAGES) <= node.keys():
            yield str(node[lang])
            return
        for value in node.values():
            yield from localized_strings(value, lang)
    elif isinstance(node, list):
        for value in node:
            yield from localized_strings(value, lang)


def translations(path: Path) -> list[tuple[str, str]]:
    """Each (source, translation) of a gettext .po file, one per plural form; the header is left out."""
    entries, entry, key = [], {}, None
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if not line.strip():
            if entry.get("msgid"):
                entries += [(entry["msgid"], text) for name, text in entry.items() if name.startswith("msgstr")]
            entry, key = {}, None
        elif match := PO_LINE_RE.match(line):
            key = match.group(1)
            entry[key] = ast.literal_eval(match.group(2))
        elif line.startswith('"') and key:
            entry[key] += ast.literal_eval(line)
    return entries


def guide_texts():
    for folder in guide_folders(CONTENT_DIR):
        for lang in LANGUAGES:
            yield pytest.param(folder / f"{lang}.md", lang, id=f"{folder.name}/{lang}.md")


def summary_texts():
    for folder in guide_folders(CONTENT_DIR):
        for lang in LANGUAGES:
            yield pytest.param(folder / f"summary.{lang}.txt", lang, id=f"{folder.name}/summary.{lang}.txt")


def quiz_texts():
    for slug, path in quiz_files(CONTENT_DIR):
        for lang in LANGUAGES:
            yield pytest.param(path, lang, id=f"{slug}/quiz.yaml/{lang}")


@pytest.mark.parametrize(("path", "lang"), list(guide_texts()))
def test_guides_use_the_glossary(path, lang):
    assert violations(path.read_text(encoding="utf-8"), lang) == []


@pytest.mark.parametrize(("path", "lang"), list(summary_texts()))
def test_spoken_summaries_use_the_glossary(path, lang):
    """What the narration says first: plain text, read as prose."""
    assert violations(path.read_text(encoding="utf-8"), lang, spoken=True) == []


@pytest.mark.parametrize(("path", "lang"), list(quiz_texts()))
def test_quizzes_and_the_exam_use_the_glossary(path, lang):
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)  # libyaml, as the site reads it
    assert violations("\n".join(localized_strings(data, lang)), lang) == []


def french_units():
    """Each French text a reader meets whole: a guide, a spoken summary, one quiz or exam question (the
    exam draws them one by one), one string of the site."""
    for folder in guide_folders(CONTENT_DIR):
        for name in ("fr.md", "summary.fr.txt"):
            yield f"{folder.name}/{name}", (folder / name).read_text(encoding="utf-8")
    for slug, path in quiz_files(CONTENT_DIR):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        for question in data["questions"]:
            yield f"{slug}/quiz.yaml:{question['id']}", "\n".join(localized_strings(question, "fr"))
    for source, text in translations(LOCALE_DIR / "fr" / "LC_MESSAGES" / "django.po"):
        yield f"django.po: {source[:50]}", PLACEHOLDER_RE.sub(" ", text)


def test_french_abbreviations_are_spelled_out():
    found = {where: problems for where, text in french_units() if (problems := unexplained_abbreviations(text))}
    assert found == {}


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("Le moteur, par GAS, divise la perte.", True),
        ("Le moteur divise par GAS (`gradient_accumulation_steps`, le nombre de pas d’accumulation).", False),
        ("GAS, le nombre de pas d’accumulation, vaut 8 ; GAS = 1 024 ÷ 128.", False),
        ("à partir d’un modèle d’EDS des méthodes adaptatives", True),
        ("d’un modèle d’équation différentielle stochastique (EDS)", False),
        ("Une recette maintient une EMA des poids.", True),
        ("une moyenne mobile exponentielle des poids (EMA) ; l’EMA", False),
        ("DDP et FSDP sur 8 GPU, avec SGD ; un CNN, la PR #34198 ; la ligne L125 ; B1 et B2", False),
        ("ajoutez-le à l’intégration continue (CI) ; la CI", False),
        ("Le XYZ de la bibliothèque", True),  # neither known nor explained
    ],
)
def test_the_abbreviation_check_flags_an_abbreviation_never_spelled_out(text, flagged):
    assert bool(unexplained_abbreviations(text)) is flagged


# Hindi, issue 40 (third reader): a Hindi comment in a guide's code is shown on the page, so it keeps
# the prose's words and genders ("# सबसे लंबी sequence तक padding", not "लंबे sequence").
HINDI_COMMENT_RE = re.compile(rf"#[ \t]*(.*[{DEVANAGARI}].*)$")


def hindi_code_comments(source: str) -> list[str]:
    return [
        match.group(1)
        for kind, line in classified_lines(source)
        if kind == CODE and (match := HINDI_COMMENT_RE.search(line))
    ]


@pytest.mark.parametrize("folder", list(guide_folders(CONTENT_DIR)), ids=lambda folder: folder.name)
def test_hindi_code_comments_use_the_glossary(folder):
    comments = hindi_code_comments((folder / "hi.md").read_text(encoding="utf-8"))
    assert comments  # the check reads the comments
    assert {comment: found for comment in comments if (found := violations(comment, "hi"))} == {}


def test_the_comment_check_reads_only_the_code():
    source = "छोटे sequences\n\n```python\nx = 1  # सबसे लंबे sequence तक\ny = 2  # plain\n```\n"
    assert hindi_code_comments(source) == ["सबसे लंबे sequence तक"]
    assert violations(hindi_code_comments(source)[0], "hi")


@pytest.mark.parametrize("lang", ["hi", "fr"])
def test_the_sites_own_words_use_the_glossary(lang):
    """The UI strings: what the menus, the lab and the quiz pages say next to the guides."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / "django.po"
    found = {
        source: problems
        for source, text in translations(path)
        if (problems := violations(PLACEHOLDER_RE.sub(" ", text), lang, content=False))
    }
    assert found == {}


def test_the_site_s_sentences_are_checked_like_the_course():
    """Issue 40, ninth French reader B: « s’annule » and a bare BatchNorm in a sentence escaped the site's
    words. Only « compte » (the learner's account) is allowed in the site and refused in the course, so
    every other refused phrase is read in django.po too; a label (no final stop) may name the layer bare."""
    assert all(re.search(r"(?<!\w)(?:dé)?comptes?(?!\w)", phrase) for phrase in GLOSSARY["french_refused_in_content"])
    assert violations("donc un facteur constant N s’annule en grande partie.", "fr", content=False)
    assert not violations("donc un facteur constant N est en grande partie neutralisé.", "fr", content=False)
    assert violations("En un seul lot, BatchNorm calcule une moyenne.", "fr", content=False)
    assert not violations("En un seul lot, la BatchNorm calcule une moyenne.", "fr", content=False)
    assert not violations("BatchNorm, N = 16", "fr", content=False)
    assert not violations("la normalisation par lot (BatchNorm) normalise le micro-lot.", "fr", content=False)


def test_the_translations_are_read_whole():
    path = LOCALE_DIR / "hi" / "LC_MESSAGES" / "django.po"
    messages = dict(translations(path))
    assert len(messages) > 500 and "" not in messages
    assert all(text for text in messages.values())  # every string of the site is translated
    assert messages["Guides"] == "गाइड"
    plural = [text for source, text in translations(path) if source == "%(n)s question"]
    assert len(plural) == 2  # both plural forms


# French, issue 40 (fifth reader): a FAQ answer is read in a few plain sentences, and two answers ran to
# one sentence of 70 to 80 words. A sentence of a French FAQ answer has at most FAQ_SENTENCE_WORDS words.
FAQ_SENTENCE_WORDS = 60
# A sentence ends at . ? ! or … before a capital, a quote, a link or code; not at "et al. (2017)".
SENTENCE_END_RE = re.compile(r"(?<=[.?!…])(?<! al\.)[ \u00a0]+(?=[A-ZÀ-ÖØ-Þ«*`(\[])")


def long_faq_sentences(text: str) -> list[str]:
    faq = re.search(r"^## [^\n]*\{#faq\}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    lines = [line for line in prose_lines(faq.group(1) if faq else "") if line and not line.startswith("#")]
    sentences = (s for line in lines for s in SENTENCE_END_RE.split(line))
    return [f"{len(s.split())} words: {s[:60]}…" for s in sentences if len(s.split()) > FAQ_SENTENCE_WORDS]


def test_the_faq_sentence_check_reads_only_the_faq():
    long = " ".join(["mot"] * 61) + "."
    assert long_faq_sentences(f"## FAQ {{#faq}}\n\n### Q ? {{#faq-1}}\n\n{long}\n") != []
    short = " ".join(["Mot"] * 40) + ". " + " ".join(["Mot"] * 40) + " [lien](https://a.b/c)."
    assert long_faq_sentences(f"## FAQ {{#faq}}\n\n{short}\n\n## Exercices {{#exercises}}\n\n{long}\n") == []


@pytest.mark.parametrize("folder", list(guide_folders(CONTENT_DIR)), ids=lambda folder: folder.name)
def test_french_faq_answers_have_no_overlong_sentence(folder):
    text = (folder / "fr.md").read_text(encoding="utf-8")
    assert "{#faq}" in text
    assert long_faq_sentences(text) == []


# Hindi, issue 40 (sixth reader): the library-history passages of guides 4 and 5 and guide 6's FAQ ran
# to Hindi sentences of 60 to 110 words, hard to follow when read and worse when heard. A sentence of a
# Hindi guide's prose (a table row aside) has at most HINDI_SENTENCE_WORDS words, a link counted by its
# text. A Hindi sentence ends at the danda, ? or !, or at ". " before a capital, a quote or a link.
HINDI_SENTENCE_WORDS = 60
LINK_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)")
HINDI_SENTENCE_END_RE = re.compile(r"(?<=[।?!])[ \u00a0]+|(?<=\.)(?<! al\.)[ \u00a0]+(?=[A-Z*`(\[\"“])")


def long_hindi_sentences(text: str) -> list[str]:
    lines = [LINK_RE.sub(r"\1", line) for line in prose_lines(text) if line and not line.startswith(("#", "|"))]
    sentences = (s for line in lines for s in HINDI_SENTENCE_END_RE.split(line))
    return [f"{len(s.split())} words: {s[:60]}…" for s in sentences if len(s.split()) > HINDI_SENTENCE_WORDS]


def test_the_hindi_sentence_check_counts_words_and_links():
    long = " ".join(["शब्द"] * 61) + "।"
    assert long_hindi_sentences(f"{long}\n") != []
    short = " ".join(["शब्द"] * 40) + "। " + " ".join(["शब्द"] * 40) + " [लिंक](https://a.b/c d e f)।"
    assert long_hindi_sentences(f"{short}\n\n| " + " ".join(["शब्द"] * 70) + " |\n") == []


@pytest.mark.parametrize("folder", list(guide_folders(CONTENT_DIR)), ids=lambda folder: folder.name)
def test_hindi_guides_have_no_overlong_sentence(folder):
    assert long_hindi_sentences((folder / "hi.md").read_text(encoding="utf-8")) == []


# Hindi, English and French, issue 40 (sixth Hindi reader): the spoken summaries gave the linear scaling
# rule "for plain gradient descent"; the guides give it for SGD (Goyal et al. 2017, who used momentum),
# and guide 5's exercise applies it to momentum SGD. A sentence that names the linear scaling rule does
# not name plain SGD.
LINEAR_SCALING_RE = re.compile(r"linear scaling|लीनियर स्केलिंग|mise à l[’']échelle linéaire", re.IGNORECASE)
PLAIN_SGD_RE = re.compile(
    r"plain (?:gradient descent|SGD)|सादे? (?:ग्रेडिएंट डिसेंट|SGD|gradient descent)|सादा (?:ग्रेडिएंट डिसेंट|SGD)"
    r"|descente de gradient simple|SGD simple|SGD sans momentum",
    re.IGNORECASE,
)
ANY_SENTENCE_END_RE = re.compile(r"(?<=[.?!।])[ \u00a0]+|\n")


def plain_linear_scaling(text: str) -> list[str]:
    return [s[:80] for s in ANY_SENTENCE_END_RE.split(text) if LINEAR_SCALING_RE.search(s) and PLAIN_SGD_RE.search(s)]


def test_the_linear_scaling_check_flags_plain_gradient_descent():
    assert plain_linear_scaling("Then the rate. For plain gradient descent, a first guess is linear scaling.")
    assert plain_linear_scaling("सादे ग्रेडिएंट डिसेंट के लिए पहला अनुमान है लीनियर स्केलिंग।")
    assert not plain_linear_scaling("For SGD, linear scaling. Test with plain gradient descent.")


def course_texts():
    for folder in guide_folders(CONTENT_DIR):
        for lang in LANGUAGES:
            for name in (f"{lang}.md", f"summary.{lang}.txt"):
                yield pytest.param(folder / name, id=f"{folder.name}/{name}")
    for slug, path in quiz_files(CONTENT_DIR):
        yield pytest.param(path, id=f"{slug}/quiz.yaml")


@pytest.mark.parametrize("path", list(course_texts()))
def test_the_linear_scaling_rule_is_not_given_for_plain_sgd(path):
    assert plain_linear_scaling(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(("path", "lang"), list(guide_texts()))
def test_fixed_sections_have_the_same_heading_in_every_guide(path, lang):
    expected = {section: names[lang] for section, names in GLOSSARY["headings"].items()}
    headings = {h.id: h.text for h in load_guide_file(path).headings if h.id in expected}
    assert headings == {section: expected[section] for section in headings}
    assert set(headings) == set(expected)


def test_the_glossary_names_every_language_and_never_forbids_its_own_words():
    for term in GLOSSARY["terms"]:
        for lang in LANGUAGES:
            assert term[lang]
            assert not any(word_pattern(v).fullmatch(term[lang]) for v in term.get("forbidden", {}).get(lang, []))
    for stem, spelling in GLOSSARY["hindi_spelling"].items():
        assert not stem_pattern(stem).match(spelling)
    for word, spelling in GLOSSARY["hindi_spelling_words"].items():
        assert not whole_word_pattern(word).match(spelling)


def test_every_hindi_noun_term_has_one_gender():
    """So that agreement is checked for each: a term of several words by its last word."""
    masculine, feminine = (set(GLOSSARY["hindi_gender"][gender]) for gender in ("masculine", "feminine"))
    assert not masculine & feminine
    not_nouns = set(GLOSSARY["hindi_gender"]["none"])
    genderless = [
        term["hi"]
        for term in GLOSSARY["terms"]
        if term["en"] not in not_nouns and not {term["hi"], term["hi"].split()[-1]} & (masculine | feminine)
    ]
    assert genderless == []
    assert set(SPOKEN) <= masculine | feminine


@pytest.mark.parametrize(
    ("text", "lang", "flagged"),
    [
        # English, issue 40 (fourth reader): it is each scored token of the short sequence that weighs 10×
        ("where an 11-token sample weighed about 10 times as much as a 101-token one", "en", True),
        ("in the 2023 report, an 11-token sample weighed about ten times a 101-token one", "en", True),
        (
            "each scored token of an 11-token sequence weighed exactly 10 times as much as a token of a 101-token one",
            "en",
            False,
        ),
        ("each token of the short sample pulls ten times harder than a token of the long one", "en", False),
        ("où un exemple de 11 tokens pesait environ 10 fois plus qu’un exemple de 101 tokens", "fr", True),
        ("où chaque token cible d’une séquence de 11 tokens pesait exactement 10 fois plus", "fr", False),
        ("जहाँ 11 tokens वाले sample का वज़न 101 tokens वाले sample से लगभग 10 गुना था", "hi", True),
        ("जहाँ 11 tokens वाली sequence के हर scored token का वज़न ठीक 10 गुना था", "hi", False),
        ("Diviser la loss par N.", "fr", True),
        ("Les losses par token.", "fr", True),
        ("Appeler `loss.backward()` puis loss.backward(), loss_fn et scaler.scale(loss).", "fr", False),
        ("Diviser la perte par N.", "fr", False),
        # French, issue 40 (second reader): calques and second words (glossary.yaml's french_refused)
        ("ce qui se dérègle, sans bruit, quand", "fr", True),  # « bruit » is the gradient's noise
        ("ce qui se dérègle sans prévenir ; l’échelle de bruit", "fr", False),
        ("environ 5,7 fois plus de temps réel", "fr", True),
        ("environ 5,7 fois plus de durée réelle", "fr", False),
        ("Vous affinez un modèle de langage.", "fr", True),
        ("Vous faites le fine-tuning d’un modèle ; une application affine.", "fr", False),
        ("Le scheduler compte des pas d’optimiseur.", "fr", True),
        ("Le scheduler compte des pas d’optimisation ; l’état de l’optimiseur.", "fr", False),
        ("une somme courante sur tout l’entraînement", "fr", True),
        ("une somme cumulée sur le micro-lot courant", "fr", False),
        ("dont tous les tokens sont labellisés", "fr", True),
        ("dont tous les tokens portent un label", "fr", False),
        # French, issue 40 (fourth reader): hybrids, the abbreviation LM, « époque », intransitive « entraîner »
        ("le coût d’une seconde passe forward", "fr", True),
        ("les N passes backward s’additionnent", "fr", True),
        ("16 passes forward/backward par pas", "fr", True),
        ("le coût d’un second forward ; les N backward s’additionnent", "fr", False),
        ("les têtes autres que les LM causaux décodeur seul, LM masqué", "fr", True),
        ("celles des modèles de langage causaux à décodeur seul ; GPT2LMHeadModel", "fr", False),
        ("corrigé pour les modèles de l’époque", "fr", True),
        ("corrigé pour les modèles qui existaient alors, à la fin de l’époque", "fr", False),
        ("Vous entraînez maintenant sur 8 GPU.", "fr", True),
        ("Un article entraîne en lots de 256.", "fr", True),
        ("Vous entraînez le modèle sur 8 GPU ; l’entraînement sur 8 GPU.", "fr", False),
        ("Le nombre de pas d’accumulation (N) doit diviser", "fr", True),
        ("Le facteur d’accumulation (N) ; le nombre de pas d’accumulation de DeepSpeed", "fr", False),
        ("une dernière fenêtre sous-dimensionnée", "fr", True),
        ("au dernier micro-pas", "fr", True),
        ("En data-parallel, chaque GPU", "fr", True),
        ("le data loader regroupe", "fr", True),
        ("le dataloader regroupe", "fr", False),
        ("on rétropropage chaque perte", "fr", True),
        ("la variance des gradients par exemple ne diminue pas", "fr", True),  # reads "for example"
        ("la variance des gradients individuels, par exemple", "fr", False),
        ("### Poids de classe et poids par exemple", "fr", True),
        ("La LayerNorm travaille exemple par exemple ; par exemple quand", "fr", False),
        ("un fichier de tests qui prouve votre boucle", "fr", True),  # a test does not prove
        ("un fichier de tests qui valide votre boucle", "fr", False),
        ("Le modèle s'entraîne sur 8 GPU.", "fr", True),  # a model "est entraîné"
        ("Le modèle est entraîné sur 8 GPU ; pour vous entraîner, faites le quiz.", "fr", False),
        ("Écrêtez le gradient accumulé.", "fr", True),
        ("Appliquez le clipping au gradient accumulé.", "fr", False),
        ("Lancez le preset du lab.", "fr", True),
        ("Lancez le préréglage du labo (/fr/labs/presets/memory-vs-n/).", "fr", False),
        ("Comptez les tokens comptés de la fenêtre.", "fr", True),
        ("Comptez les tokens cibles de la fenêtre.", "fr", False),
        # French, issue 40 (third reader): one name for accuracy, the token count, activation memory;
        # « par exemple » before a participle; calques
        ("des lots de 8 192 images sans perte de précision ; au-delà, la précision se dégradait", "fr", True),
        ("sans perte d’exactitude ; au-delà, l’exactitude se dégradait, en précision mixte", "fr", False),
        ("et les précisions finales", "fr", True),
        ("Le compte a réglé la pondération ; ignorer le compte", "fr", True),
        ("Le décompte a réglé la pondération ; on compte les tokens, ce qui compte", "fr", False),
        ("Sans le compte, la perte ; un compte de tokens", "fr", True),
        ("des sommes s_i et des effectifs n_i", "fr", True),
        ("le même nombre de tokens, un lot effectif de 64", "fr", False),
        ("[Mémoire d’activation en fonction de N]", "fr", True),
        ("le pic de mémoire d’activations", "fr", False),
        ("Par exemple traité, en général un peu", "fr", True),  # reads "for example, processed"
        ("des exemples calculés par exemple traités à part", "fr", True),
        ("Rapporté au nombre d’exemples traités ; par exemple Llama, par exemple, traité", "fr", False),
        ("les activations d’un seul micro-lot doivent exister à la fois", "fr", True),
        ("ne tient qu’à 2 images par GPU", "fr", True),
        ("ne tient en mémoire qu’avec 2 images par GPU, un bug à la fois", "fr", False),
        ("deux cas restent donc trop grands", "fr", True),
        ("la perte reste donc trop grande dans deux cas", "fr", False),
        ("son optimiseur enveloppé et le BF16 optimizer", "fr", True),
        ("son optimiseur encapsulé ; Lightning exécute sous no_sync les micro-lots", "fr", False),
        ("dépasse les passes de 4 096 exemples", "fr", True),
        ("dépasse le temps du forward et du backward de 4 096 exemples", "fr", False),
        # French, issue 40 (fifth reader): « juste » for correct, word order, calques, one word per concept
        ("La ligne 6 est juste : 500 pas. Votre prédiction était juste.", "fr", True),  # reads as "just"
        ("| 4.48.0 | N × | juste |", "fr", True),
        ("La ligne 6 est correcte, juste avant step() ; juste après ; les divisions tombent juste", "fr", False),
        ("Le 1 000 tentant compte les micro-lots ; le 1,5 tentant", "fr", True),
        ("La réponse tentante, 1 000, compte les micro-lots", "fr", False),
        ("le gradient des trainers de TRL, ou d’un trainer maison", "fr", True),
        ("le Trainer de Transformers ([trainer.py](https://x/trainer.py)) ; voir #trainer-loss-history", "fr", False),
        ("plus de mémoire GPU qu’aucun worker connecté n’en a", "fr", True),
        ("aucun worker connecté n’a assez de mémoire GPU, alors qu’aucun GPU n’en garde plus de 6", "fr", False),
        ("la perte de l’entraînement accumulé, un seul micro-lot dans chaque passage accumulé", "fr", True),
        ("la perte de l’entraînement avec accumulation, le forward de chaque micro-lot", "fr", False),
        ("comparez les quelques centaines de premiers pas", "fr", True),
        ("comparez les premières centaines de pas", "fr", False),
        ("Diviser la perte redimensionne les gradients", "fr", True),
        ("Diviser la perte remet les gradients à l’échelle", "fr", False),
        ("Garder BatchNorm et accumuler ; remplacer BatchNorm par GroupNorm", "fr", True),
        ("Garder la BatchNorm et accumuler ; remplacer la BatchNorm par la GroupNorm", "fr", False),
        ("**Protéger les mises à jour de bibliothèques.**", "fr", True),
        ("Ici vient une figure tirée des exécutions de référence.", "fr", True),
        ("Ici prendra place une figure tirée des exécutions de référence.", "fr", True),
        ("Une figure tirée des exécutions de référence s’affichera ici.", "fr", False),
        # French, issue 40 (seventh reader): calques and one name per setting (french_seventh_reader)
        ("Augmenter N n’agrandit que le lot derrière le gradient", "fr", True),
        ("Les nombres derrière cette figure ; jamais ceux derrière les statistiques", "fr", True),
        ("Augmenter N n’agrandit que le lot sur lequel est calculé le gradient ; derrière la boucle", "fr", False),
        ("un scheduler avancé à chaque micro-lot ; Le scheduler est avancé", "fr", True),
        ("un scheduler qu’on fait avancer à chaque micro-lot ; le scheduler avance ; un usage avancé", "fr", False),
        ("Vous avez 8 GPU qui tiennent 32 exemples chacun", "fr", True),
        ("et chaque GPU accepte un micro-lot d’au plus 8 exemples", "fr", True),
        ("8 GPU, et 32 exemples tiennent sur chacun ; un seul GPU, où tiennent 32 images", "fr", False),
        ("combien de fois le nombre minimal de pas S_min faut-il ?", "fr", True),
        ("combien de pas faut-il, en multiples du nombre minimal S_min ? combien de fois il avance", "fr", False),
        ("un CNN de chiffres ; le MLP des chiffres manuscrits ; CNN sur digits", "fr", True),
        ("un CNN entraîné sur le jeu de données digits (chiffres manuscrits)", "fr", False),
        ("BatchNorm est l’exception connue à l’exactitude", "fr", True),
        ("l’exactitude de l’accumulation", "fr", True),
        ("l’accumulation n’est plus exacte ; les exactitudes finales ; l’exactitude en validation", "fr", False),
        ("Micro-lot 4, N = 16 (lot effectif 64)", "fr", True),
        ("Le micro-lot vaut le lot effectif ÷ N ; le nouveau lot effectif divisé par l’ancien", "fr", True),
        ("lot effectif B ; un lot effectif d’au plus 64 ; (pas × lot effectif)", "fr", True),
        ("Lot effectif", "fr", True),
        ("(taille de lot effective 64) ; la taille de lot effective ÷ N", "fr", False),
        ("tout le lot effectif ; un lot effectif de 64 ; la moitié du lot effectif", "fr", False),
        ("Taille de lot effective = micro-lot × N × nombre de GPU ; résolvez pour N.", "fr", True),
        ("Taille de lot effective = micro-lot × N × nombre de GPU ; isolez N.", "fr", False),
        ("le warmup se termine N fois trop tôt ; Geler la BatchNorm en mode eval", "fr", True),
        ("le warmup se termine N fois trop vite ; en mode évaluation, avec `model.eval()`", "fr", False),
        ("Nom tel que délivré ; ce que certifie le certificat ; Chaque bon point prévient", "fr", True),
        ("Nom figurant sur le certificat ; ce qu’atteste le certificat ; un bon point de départ", "fr", False),
        ("Vous entraînez avec DDP sur 2 GPU et votre carte tombe en panne", "fr", True),
        ("Vous entraînez le modèle avec DDP ; un entraînement avec accumulation", "fr", False),
        ("le pas de l’optimiseur, le nombre d’étapes d’accumulation", "fr", True),
        ("aux arrondis flottants près", "fr", True),
        ("sont des buffers", "fr", True),
        ("sont des tampons (buffers)", "fr", False),
        ("Trois runs sur 8 000 échantillons.", "fr", True),
        ("Trois exécutions sur 8 000 exemples.", "fr", False),
        ("la passe avant puis la passe arrière", "fr", True),
        ("le forward puis le backward", "fr", False),
        ("Aucune machine de calcul n'est connectée.", "fr", True),
        # French, issue 40 (sixth reader): the classes of its findings
        ("une taille de lot plus grande entraînera plus vite", "fr", True),  # « entraîner » takes an object
        ("entraîner sur des micro-lots isolés ; vous entraînez désormais avec un lot de 512", "fr", True),
        ("permettra d’entraîner le modèle plus vite ; vous entraînez le modèle sur 8 GPU", "fr", False),
        ("Pour vous entraîner, faites le quiz ; le modèle s’entraîne", "fr", True),  # the glossary's s’entraîne
        ("Pour vous entraîner sur le labo, faites le quiz", "fr", False),  # a person trains
        ("La BatchNorm ne peut pas entraîner le modèle digits-mlp", "fr", True),  # a layer does not train
        ("SGD entraîne le réseau ; des lots de 256 entraînent le modèle", "fr", True),
        ("Une recette a entraîné un CNN à partir de zéro", "fr", True),
        ("Selon une recette, un CNN a été entraîné à partir de zéro", "fr", False),
        ("des pertes normalisées par tokens ; un GPU qui accepte 32 images", "fr", True),
        ("normalisées par le nombre de tokens ; un GPU où tiennent 32 images", "fr", False),
        ("Impossible d’entraîner le modèle avec la BatchNorm ; un CNN à BatchNorm est entraîné", "fr", False),
        ("Le préréglage entraîne un MLP à BatchNorm ; une couche BatchNorm est entraînée", "fr", False),
        ("Une configuration déjà entraînée n’est pas réentraînée", "fr", True),
        ("Une exécution aux réglages identiques avait déjà été entraînée", "fr", True),
        ("Une configuration déjà exécutée n’est pas relancée ; les exécutions entraînent le modèle", "fr", False),
        ("Enveloppez le forward dans model.no_sync() ; l’enveloppe DDP ; Tout envelopper", "fr", True),
        ("N’envelopper que le 4ᵉ micro-lot", "fr", True),
        ("Exécutez le forward sous model.no_sync() ; le modèle encapsulé par DDP", "fr", False),
        ("son estimation du moment d’ordre deux", "fr", True),  # one name: « le second moment »
        ("son estimation du second moment ; le premier moment", "fr", False),
        ("Ces modèles utilisent souvent BatchNorm ; l’accumulation ne répare pas BatchNorm", "fr", True),
        ("Qu’est-ce qui rend BatchNorm différente ?", "fr", True),
        (
            "utilisent souvent la BatchNorm ; qu’utilise la BatchNorm ? un modèle à BatchNorm ; elle normalise",
            "fr",
            False,
        ),
        ("Testez contre une référence indépendante", "fr", True),
        ("quelques pas accumulés contre les mêmes pas sur le lot complet", "fr", True),
        ("Comparez à une référence ; Pas contre exemples ; échanger du temps contre de la mémoire", "fr", False),
        ("Fenêtres propres ; le gradient propre d’un micro-lot ; le test le plus propre", "fr", True),
        ("Fenêtres complètes ; le gradient propre à chaque micro-lot ; sa propre amplitude", "fr", False),
        ("La narration complète, plus bas, lit tout le guide", "fr", True),
        ("La lecture intégrale, plus bas, reprend le guide ; il lit le guide", "fr", False),
        ("avant d’en traiter aucun", "fr", True),
        ("avant d’en traiter un seul ; aucun n’est traité avant", "fr", False),
        ("un pas d’optimisation, pas un micro-lot ; en pas d’optimisation, pas en micro-lots", "fr", True),
        ("un pas d’optimisation, et non un micro-lot ; clipping, pas d’optimisation, pas du scheduler", "fr", False),
        ("entraînent leur modèle avec des lots de 256 avec un taux de 0,1", "fr", True),
        ("avec des lots de 256 et un taux de 0,1 ; avec SGD puis avec AdamW ; avec N = 1 et avec N = 4", "fr", False),
        ("### Faut-il no_sync() sur un seul GPU ?", "fr", True),
        ("### Faut-il utiliser no_sync() sur un seul GPU ? Faut-il changer le taux ?", "fr", False),
        ("posez `model.accepts_loss_kwargs = False` ; avec l’attribut posé", "fr", True),
        ("mettez `model.accepts_loss_kwargs` à `False` ; posez $N = B/b$ ; ce guide pose la question", "fr", False),
        ("leurs gradients fuient dans la fenêtre suivante ; c’est ce cas que l’on retient", "fr", True),
        ("sa liaison Python garde le GIL ; le jeu digits ; la mémoire choisit souvent très petit", "fr", True),
        ("possible sur un jouet ; sur ce jouet ; le nombre de copies en parallélisme de données", "fr", True),
        (
            "sur un problème jouet ; le nombre de rangs de parallélisme de données ; détient le GIL ; "
            "le jeu de données digits",
            "fr",
            False,
        ),
        ("moyenne mobile exponentielle de poids 0,9 ; la perte divisée sur toute la fenêtre", "fr", True),
        ("les autres exemples de la passe ; la passe en cours", "fr", True),
        ("les exemples du même forward ; en une seule passe ; un mot de passe", "fr", False),
        # issue 40: one word per concept in French
        ("avec un BatchNorm figé", "fr", True),  # BatchNorm is feminine, and frozen is « gelée »
        ("avec une BatchNorm gelée, puis la ghost BatchNorm", "fr", False),
        ("ses statistiques courantes", "fr", True),
        ("ses statistiques glissantes", "fr", False),
        ("le sharding de FSDP, des gradients shardés", "fr", True),
        ("le partitionnement de FSDP, des gradients partitionnés", "fr", False),
        ("l’activation checkpointing, le gradient checkpointing", "fr", True),
        ("le checkpointing d’activations (`gradient_checkpointing=True`)", "fr", False),
        ("votre checklist, la liste de contrôle", "fr", True),
        ("un auto-tuner", "fr", True),
        ("les tokens labellisés du batch, par epoch", "fr", True),
        ("le calendrier du taux d’apprentissage", "fr", True),  # ninth readers: « planification »
        ("la planification du taux d’apprentissage, comptée par époque", "fr", False),
        ("un certificat du Gradient Accumulation Course", "fr", True),
        ("un certificat du cours sur l’accumulation de gradient", "fr", False),
        ("मॉडल को train करना", "hi", True),
        ("Loss को N से divide कीजिए।", "hi", True),  # the -इए form
        ("Lab चलाइए और देखिए", "hi", True),
        ("Loss को N से भाग दें, इसलिए नहीं कि यह चाहिए, उसके लिए जो दिए गए हैं।", "hi", False),
        ("Multi-GPU ट्रेनिंग।", "hi", True),  # the danda ends a word
        ("यह ट्रेनिंग॥", "hi", True),
        ("यह गलत।", "hi", True),
        ("यह अगला गाइड।", "hi", True),
        ("Multi-GPU training।", "hi", False),
        ("यह गलती है", "hi", True),
        ("यह ग़लती है", "hi", False),
        ("फ़र्क पड़ता है", "hi", True),
        ("फ़र्क़ पड़ता है", "hi", False),
        ("\u095b\u094dयादा", "hi", True),
        ("ग्रेडिएंट संचय (gradient accumulation) का वादा", "hi", False),
        ("छोटी run में", "hi", True),  # run is masculine
        ("बड़ी runs", "hi", True),
        ("पूरे run पर", "hi", False),
        ("आपकी run का log", "hi", True),
        ("आपकी run config", "hi", False),  # the last word of the term agrees: config
        ("एक ऐसा run जो", "hi", False),
        ("हर रन का", "hi", True),  # run is written in Latin script
        ("पूरे window में", "hi", True),  # window is feminine
        ("पूरी window में", "hi", False),
        ("का loss curve", "hi", True),  # the adjective of a two-word term agrees with its last word
        ("उसका optimizer state", "hi", True),
        ("उसकी optimizer state", "hi", False),
        ("Adam का update learning rate पर", "hi", False),  # का belongs to update
        ("curve ठीक दिखता है", "hi", True),  # a verb after its subject
        ("curve ऊपर चढ़ती है", "hi", False),
        ("कोई error नहीं आता।", "hi", True),
        ("24.1% error मिली,", "hi", False),
        ("clipping बढ़ जाता है", "hi", True),
        ("learning rate बढ़ा दी", "hi", False),  # transitive: agrees with its object
        ("learning rate खिसका देती हैं", "hi", False),
        ("weights और optimizer state आते हैं", "hi", False),  # two nouns agree together
        ("जब optimizer.step() call होता है", "hi", False),  # call होना agrees with its subject
        ("पूरा learning rate warmup", "hi", False),
        ("नया learning rate", "hi", True),
        ("अगला गाइड", "hi", True),  # गाइड is feminine
        ("अगली गाइड", "hi", False),
        ("नई गाइडों में", "hi", False),
        ("किसी run में", "hi", False),  # किसी has no gender
        ("की `x` run", "hi", False),  # only words that stand next to each other
        # Hindi, issue 40 (second reader): one verb pair for arithmetic, the school one
        ("Loss को N से divide करें।", "hi", True),
        ("Loss को N से भाग दें, फिर 8 से गुणा करें।", "hi", False),
        ("EMA पुराने average को decay से multiply करता है।", "hi", True),
        ("वरना gradient दो बार भाग हो जाता।", "hi", True),  # reads as "runs away"
        ("gradient दो बार भाग नहीं होता", "hi", True),
        ("वरना gradient दो बार विभाजित हो जाता, यानी उसे दो बार N से भाग दिया जाता।", "hi", False),
        ("`divide_by_window_tokens()` और lab `forgot-divide-sgd`", "hi", False),  # code keeps its names
        ("हर GPU पर 2 images fit होती हैं।", "hi", True),
        ("हर GPU पर 2 images समाती हैं, model overfit होता है, रेखा fit नहीं बैठती।", "hi", False),
        ("20 steps का warm-up", "hi", True),
        ("20 steps का warmup", "hi", False),
        ("पुराना mean of micro-batch means", "hi", True),
        ("पुराना micro-batch means का mean", "hi", False),
        ("दो decimal places तक जवाब दें।", "hi", True),
        ("चार दशमलव स्थानों तक जवाब दें।", "hi", True),
        ("जवाब दशमलव के चार अंकों तक दें।", "hi", False),  # eleventh readers: one wording
        ("October 2024 में", "hi", True),
        ("अक्टूबर 2024 में", "hi", False),
        ("चित्रों और कोड के साथ", "hi", True),
        ("चित्रों और code के साथ, उसके QR कोड से", "hi", False),
        ("float32 के लायक tolerances", "hi", True),
        ("float32 के लायक़ tolerances", "hi", False),
        ("दो सबक किसी भी code पर", "hi", True),
        ("यही सबक:", "hi", True),
        ("दो सबक़, और सबको, सबकी, सबके लिए", "hi", False),  # सबको (everyone) is another word
        ("बिलकुल वैसा ही", "hi", True),
        ("बिल्कुल वैसा ही", "hi", False),
        ("यह भूली हुई division", "hi", True),  # division is masculine
        ("यह भूला हुआ division", "hi", True),  # fourth reader: the course's भाग देना, not the English noun
        ("N से भाग देना भूल जाना", "hi", False),
        ("बड़ी CNN", "hi", True),  # CNN is masculine
        # Hindi, issue 40 (third reader): calques and second words (glossary.yaml's hindi_refused)
        ("पूरे run का चलता हुआ योग", "hi", True),  # "running" is not चलता
        ("पूरे run में अब तक जुड़ा sum; BatchNorm के running statistics", "hi", False),
        ("gradient के आकार के एक चलते अनुमान से", "hi", True),
        ("Adam अपने running scale से भाग देता है", "hi", True),
        ("GPUs के पार SyncBatchNorm", "hi", True),  # के पार is "beyond"
        ("सभी GPUs में साझा statistics वाला SyncBatchNorm", "hi", False),
        ("एक test से setup को साबित करती है", "hi", True),  # a test does not prove
        ("एक test से setup की जाँच करती है", "hi", False),
        ("checkpointing micro-batch 2 को fit कराती है", "hi", True),
        ("checkpointing से micro-batch 2 memory में समा पाता है", "hi", False),
        ("Micro-batch A में 10 target tokens हैं", "hi", True),  # the glossary's scored token
        # Hindi, issue 40 (seventh reader): one word per concept, a hyphen hides nothing
        ("loss आम तौर पर प्रति-example losses का mean है", "hi", True),
        ("loss आम तौर पर हर sample के loss का mean है", "hi", False),
        ("# पहले window के labelled tokens गिनें", "hi", True),
        ("हर sequence में 1 से 12 label वाले tokens", "hi", True),
        ("# पहले window के scored tokens गिनें", "hi", False),
        ("आम stack है bf16 autocast, gradient checkpointing और accumulation", "hi", True),
        ("activation checkpointing (Trainer में `gradient_checkpointing=True`)", "hi", False),
        ("micro-batch × accumulation steps × GPUs", "hi", True),
        ("माइक्रो-बैच, गुणा एक्यूमुलेशन स्टेप्स, गुणा", "hi", True),
        ("micro-batch × `gradient_accumulation_steps` (N) × GPUs", "hi", False),
        ("# pair i: queries[i] का जोड़ keys[i] है", "hi", True),
        ("# pair i: queries[i] की जोड़ीदार key keys[i] है; token losses का sum 12 है", "hi", False),
        ("क्लिप विंडो के शुरुआती माइक्रो-बैचों को छोटा कर देता है।", "hi", True),
        ("clip window के शुरुआती micro-batches का योगदान घटा देता है।", "hi", False),
        ("Micro-batch A में 10 scored tokens हैं", "hi", False),
        ("वह भी N से भाग दिया हुआ", "hi", True),
        ("Window की boundary पर", "hi", True),
        ("`rescale_grads_at_boundary()` window की सीमा पर", "hi", False),
        ("Bit-for-bit एक जैसा, plain SGD के साथ", "hi", True),
        ("Bit-दर-bit एक जैसा, सादे SGD के साथ", "hi", False),
        ("(सभी सही विकल्प चुनें।)", "hi", False),
        ("कौन-से statements सही हैं? जितने सही हों, सब चुनें।", "hi", True),
        # Hindi, issue 40 (fourth reader): भाग with its verb, one word per concept
        ("यह भाग पहले ही हो चुका है", "hi", True),  # भाग … होना with words between
        ("भाग ठीक एक बार होना चाहिए।", "hi", True),
        ("N से ठीक एक बार भाग दिया जाना चाहिए; N से भाग देना ज़रूरी होता है; इस हिस्से में जो होता है", "hi", False),
        ("N से भाग वापस पलटना होगा", "hi", True),  # fifth reader: a bare भाग, whatever follows
        ("हर micro-batch का loss, यानी loss का भाग, backward", "hi", True),
        ("तो लॉस का भाग उसी को देने दें", "hi", True),
        ("उसे कोई भाग नहीं मिलता", "hi", True),
        ("इन्हें N से भाग मिलता था", "hi", True),
        ("जबकि भाग वाला run सामान्य रूप से train होता है", "hi", True),
        ("जबकि N से भाग देने वाले run में model सामान्य रूप से train होता है", "hi", False),
        ("accumulated gradient full batch के gradient से अलग है", "hi", True),
        ("full-batch gradient का N गुना", "hi", True),
        ("accumulated gradient पूरे batch के gradient से अलग है", "hi", False),
        ("क्या-क्या बदलना चाहिए? जो कुछ भी बदलना चाहिए, सब चुनें।", "hi", True),
        ("जितनी सही हों, सब चुनें।", "hi", True),
        ("एकमात्र मौका", "hi", True),
        ("एकमात्र मौक़ा", "hi", False),
        ("जब कोई शुरुआती call fire होती है", "hi", True),
        ("जब कोई शुरुआती call सच में clip करती है", "hi", False),
        # the object of भाग देना takes को
        ("हर loss 4 से भाग दिया गया है", "hi", True),
        ("हर micro-batch का loss 4 से भाग देते हैं", "hi", True),
        ("Accelerate backward() में loss भाग देता है", "hi", True),
        ("(उसका loss $N$ से भाग दिया गया था)", "hi", True),  # inline math counts as a word
        ("हर loss को 4 से भाग दिया गया है, वह भी N से विभाजित", "hi", False),
        ("weighted sum को weights के sum से भाग देता है; gradients को loss scale से भाग देता है", "hi", False),
        ("token losses का sum लेकर गिनती से भाग दें; 8 gradients जोड़ते हुए 4 से भाग दें", "hi", False),
        # Hindi, issue 40 (fifth reader): भाग देना says by what, with its verb; विभाजित for a divided
        # quantity; the model is trained; समाना takes no object; five calques
        ("पता करें कि loss को कौन भाग देता है", "hi", True),  # by what?
        ("| | Loss को कौन भाग देता है | आख़िरी अधूरी window |", "hi", True),  # a table header too
        ("इन्हें इस्तेमाल करते हैं, तो दोबारा भाग न दें।", "hi", True),
        ("दो बार भाग देना या भाग देना भूल जाना", "hi", True),
        ("जिसे window के tokens की गिनती से पहले ही भाग दिया जा चुका है", "hi", True),  # से पहले: "before"
        ("पता करें कि loss को N से कौन भाग देता है; ख़ुद दोबारा $N$ से भाग न दें", "hi", False),
        ("दो बार N से भाग देना या N से भाग देना भूल जाना; CrossEntropyLoss किससे भाग देता है", "hi", False),
        ("इसे पहले ही window के tokens की गिनती से भाग दिया जा चुका है; उससे gradients को भाग देना", "hi", False),
        ("ताकि library का भाग कट जाए", "hi", True),  # a bare noun: "part, share"
        ("Trainer हर उस model के लिए N से भाग छोड़ देता है", "hi", True),
        ("कुल से भाग हर backward से पहले loss पर हो सकता है", "hi", True),
        ("ऊपर से N से भाग भी नहीं।", "hi", True),
        ("| 5 | tokens पर sum, window के token count से भाग | Test 3 |", "hi", True),
        ("full_n = window_grad(last, N)  # सेट किए गए N से भाग", "hi", True),
        ("Trainer हर उस model के loss को N से भाग नहीं देता; N से कहाँ भाग दिया जाए", "hi", False),
        ("भाग दिए गए $N$ losses का योग", "hi", True),  # a participle before its noun
        ("window के कुल tokens से भाग दिया गया sum", "hi", True),
        ("$N$ से विभाजित losses का योग; हर loss को $N$ से भाग दिया गया था, और भाग दिए गए हैं", "hi", True),
        ("$N$ से विभाजित losses का sum; हर loss को $N$ से भाग दिया गया था", "hi", False),
        ("क्या कोई भी $N$ run को समा सकता है?", "hi", True),
        ("क्या किसी भी $N$ से यह run memory में समा सकता है?", "hi", False),
        ("प्रश्न-बैंक से बेतरतीब चुने गए सवाल", "hi", True),
        ("प्रश्न-बैंक से random चुने गए सवाल", "hi", False),
        ("warmup उतने ही examples को ढके; steps उतने ही examples ढकते हैं", "hi", True),
        ("हर एक दोगुने samples को कवर करने लगता है", "hi", True),
        ("warmup उतने ही samples तक चले; steps दोगुने samples को cover करते हैं", "hi", False),
        ("N ही वह knob है; उसे घटाने वाला lever", "hi", True),
        ("`max_norm` लगभग कभी trigger नहीं होता", "hi", True),
        ("`max_norm` 8 गुना छोटे gradient को लगभग कभी clip नहीं करता", "hi", False),
        ("और आपका कार्ड 32 पर ही out-of-memory error दे देता है", "hi", True),
        ("यह कार्डों के आँकड़े मिलाता है", "hi", True),
        ("और आपका GPU 32 पर ही out-of-memory error दे देता है", "hi", False),
        ("और labs कोर्स की अपनी मशीनों पर train करती हैं।", "hi", True),  # the model is trained
        ("जो settings पहले train हो चुकी हैं", "hi", True),
        ("और run 256 की जगह 230 पर train होता है", "hi", True),
        ("AdamW 256 के batch पर $3 \times 10^{-4}$ से अच्छी तरह train होता है", "hi", True),
        ("और model 256 की जगह 230 पर train होता है; labs की training मशीनों पर होती है", "hi", False),
        ("Preset एक ही model को N = 4 पर train करता है; digits पर train होने वाले MLP पर", "hi", False),
        ("fp32 में Adam के साथ train हो रहा एक model; हमारे workers ने models train किए", "hi", False),
        # nouns the writers gave two genders
        ("ऐसा subclass", "hi", True),  # subclass is feminine
        ("ऐसी Trainer subclass", "hi", False),
        ("कोई padding नहीं आता", "hi", True),  # padding is feminine, like training
        ("Trainer की releases का इतिहास", "hi", True),  # release is masculine
        ("Trainer के releases का इतिहास", "hi", False),
        ("activations अपनी peak पर", "hi", True),  # peak is masculine
        ("activations अपने peak पर, पहली layer", "hi", False),
        ("आख़िरी layer का output", "hi", False),
        ("पूरा layer", "hi", True),  # layer is feminine
        ("Padding गिना नहीं जाता, padding कभी गिना नहीं जाता", "hi", True),  # a passive agrees with its subject
        ("Padding गिनी नहीं जाती, tokens गिने जाते हैं, window बाँटी गई", "hi", False),
        # French, issue 40 (seventh reader): a refused phrase with « n’ » or an article inserted
        ("doit passer sur 2 GPU qui n’acceptent que 16 exemples chacun", "fr", True),
        ("Écrire une fenêtre normalisée par les tokens", "fr", True),
        ("sur 2 GPU où ne tiennent que 16 exemples ; une fenêtre normalisée par le nombre de tokens", "fr", False),
        # clipping scales the contribution of micro-batches, it does not make them smaller
        ("il réduit les micro-lots déjà sommés, et eux seuls", "fr", True),
        ("un clipping précoce réduirait les premiers micro-lots de la fenêtre", "fr", True),
        ("il réduit la contribution des micro-lots déjà sommés ; la part des premiers micro-lots", "fr", False),
        # « échanger A contre B » gives A: no_sync saves communication
        ("Vous échangez de la communication contre de la mémoire.", "fr", True),
        (
            "Vous économisez de la communication au prix de la mémoire ; échangeant de la communication "
            "supplémentaire contre de la mémoire ; l’accumulation échange du temps contre de la mémoire",
            "fr",
            False,
        ),
        # a model is not N times too large; its loss is
        ("et les modèles qui acceptent le décompte étaient de nouveau N fois trop grands", "fr", True),
        ("et la perte des modèles qui acceptent le décompte était de nouveau N fois trop grande", "fr", False),
        ("pour les modèles dont les gradients étaient N fois trop grands", "fr", False),
        # one form for BatchNorm in running prose: « la BatchNorm »
        ("Avec BatchNorm, quatre micro-lots de 8 ne valent pas un lot de 32.", "fr", True),
        ("Les couches de normalisation. BatchNorm ne la respecte pas.", "fr", True),
        ("les statistiques de BatchNorm ; un MLP entraîné avec BatchNorm", "fr", True),
        ("les couches qui calculent des statistiques sur le lot, BatchNorm en tête", "fr", True),
        (
            "Avec la BatchNorm, quatre micro-lots. La BatchNorm ne la respecte pas ; un réseau à BatchNorm, "
            "des couches BatchNorm, une ghost BatchNorm, `nn.BatchNorm2d`, FrozenBatchNorm2d, SyncBatchNorm ; "
            "sans BatchNorm ni dropout ; il n’a pas de BatchNorm ; des couches LayerNorm, GroupNorm et BatchNorm gelée",
            "fr",
            False,
        ),
        ("| BatchNorm | oui |\n## BatchNorm et accumulation", "fr", False),  # tables and headings
        # the other norms too (issue 40, eleventh French readers)
        ("24,1 % avec GroupNorm contre 34,7 % avec la BatchNorm", "fr", True),
        ("Les transformers utilisent de plus en plus LayerNorm. RMSNorm normalise chaque exemple.", "fr", True),
        (
            "24,1 % avec la GroupNorm contre 34,7 % avec la BatchNorm ; La LayerNorm normalise ; un réseau à "
            "GroupNorm ; le balayage LayerNorm ; La LayerNorm, la GroupNorm et la RMSNorm calculent",
            "fr",
            False,
        ),
        ("Quelle couche ?\nLayerNorm\nGroupNorm", "fr", False),  # options, the name alone
        ("un facteur constant s’annule, sauf face à ε", "fr", True),  # eighth reader: cancels out
        ("un facteur constant se simplifie, sauf face à ε", "fr", False),
        # eighth reader: after any other word too
        ("un lot de 32, mais BatchNorm normalise sur 2 ; celui dont BatchNorm tire ses statistiques", "fr", True),
        ("En mode évaluation, qu’utilise BatchNorm ? Pourquoi BatchNorm ne s’accumule pas", "fr", True),
        (
            "mais la BatchNorm normalise ; **BatchNorm.** La BatchNorm ; [BatchNorm avec N = 1](/fr/labs/x/)",
            "fr",
            False,
        ),
        # Hindi, issue 40 (sixth reader): one word per concept, and calques
        ("एक accumulation window के steps को सही क्रम में लगाएँ।", "hi", True),  # stages are चरण
        ("Auto-tuner के steps को क्रम में लगाएँ; हर step को पिछले step का नतीजा चाहिए।", "hi", True),
        ("कोर्स जिन steps की सलाह देता है", "hi", True),
        ("Window के चरणों को सही क्रम में लगाएँ; हर चरण को पिछले चरण का नतीजा चाहिए; 200 steps तक", "hi", False),
        ("Fix को एक ऐसा denominator चाहिए", "hi", True),
        ("Fix को एक ऐसा भाजक चाहिए", "hi", False),
        ("दोनों bitwise identical हैं", "hi", True),
        ("एक बार `backward()` बुलाता है; `zero_grad()` बुलाएँ", "hi", True),
        ("एक बार `backward()` call करता है; `zero_grad()` call करें", "hi", False),
        ("SyncBatchNorm हर micro-step में", "hi", True),
        ("SyncBatchNorm हर forward pass में; DeepSpeed का `micro_steps` counter", "hi", False),
        ("Square-root scaling rule से; linear scaling rule", "hi", True),
        ("वर्गमूल नियम से; linear scaling नियम", "hi", False),
        ('("On the SDEs and Scaling Rules for Adaptive Gradient Algorithms")', "hi", False),  # a title
        ("BatchNorm samples को आपस में जोड़ देता है", "hi", True),  # couple, not add
        ("और samples को जोड़ने वाले losses", "hi", True),
        ("BatchNorm samples को एक-दूसरे पर निर्भर बना देता है; gradients .grad में जुड़ते हैं", "hi", False),
        ("वह अब तक जुड़े micro-batches को छोटा करती है", "hi", True),
        ("वह अब तक जुड़े micro-batches के gradient को छोटा करती है", "hi", False),
        ("Tokens का sum ÷ कुल tokens", "hi", True),
        ("Token losses का sum ÷ कुल tokens", "hi", False),
        ("यानी memory के बदले communication", "hi", True),
        ("यानी communication की क़ीमत पर memory की बचत", "hi", False),
        ("हर एक जैसी scale की ग़लती", "hi", True),  # scale is masculine
        ("हर एक जैसे scale की ग़लती, आख़िरी छोटी window सही scale होती है", "hi", False),  # scale होना: scaled
        ("nanoGPT के train.py का क्रम", "hi", True),  # train.py is a file: feminine
        ("loop की body; Body लिखी जाती है", "hi", True),  # body is masculine, as in the UI
        ("loop का body; Body लिखा जाता है; nanoGPT की train.py का क्रम", "hi", False),
        ("उसे Accumulation steps की संख्या (N) में लिखें", "hi", True),
        ("उसे accumulation factor (N) में लिखें; DeepSpeed `gradient_accumulation_steps` से scale करता है", "hi", False),
        # seventh reader: DeepSpeed scales by GAS (N), its `gradient_accumulation_steps`, not "accumulation steps"
        ("उसे accumulation factor (N) में लिखें; DeepSpeed GAS (N) से scale करता है", "hi", False),
        ("DeepSpeed accumulation steps से scale करता है", "hi", True),
        ("Effective batch का आकार; Micro-batch का आकार", "hi", True),
        ("Effective batch size; micro-batch size; window के असली micro-batches की संख्या", "hi", False),
        ("262 predicted tokens की जगह; predict होने वाले tokens से", "hi", True),
        ("Floating-point rounding तक वही gradient", "hi", True),
        ("Floating-point rounding के फ़र्क़ को छोड़कर वही gradient", "hi", False),
        ("Data set असंतुलित है; data loader के अंत में", "hi", True),
        ("Dataset असंतुलित है; dataloader के अंत में; `DataLoaderConfiguration`", "hi", False),
        ("N backward passes ख़ाली buffers में जुड़ते हैं", "hi", True),  # the gradients add up
        ("backward, जो .grad में जुड़ता जाता है", "hi", True),
        ("N backward passes के gradients ख़ाली buffers में जुड़ते हैं", "hi", False),
        ("64 samples पर average किया हुआ gradient", "hi", True),  # the mean is the glossary's mean
        ("N micro-batch mean losses का average लेना; औसत gradient", "hi", True),
        ("उन N औसतों का औसत; दोनों averages बराबर", "hi", True),
        ("64 samples पर mean लिया हुआ gradient; N micro-batch mean losses का mean", "hi", False),
        ("DDP ranks के gradients का औसत लेता है; सभी GPUs के gradients का औसत", "hi", True),  # eleventh readers: DDP too
        ("weights का moving average; running averages; gradient के परिमाण के अब तक के औसत से; औसतन", "hi", False),
        ("compare करें; Practice में; पहले clear करने से; यह condition; full pass में", "hi", True),
        ("तुलना करें; व्यवहार में; पहले साफ़ करने से; यह शर्त; पूरे batch वाले pass में", "hi", False),
        ("चारों को wrap करने पर", "hi", True),
        ("चारों को `no_sync()` के अंदर रखने पर; wrapped optimizer", "hi", False),
        ("चारों को `no_sync()` में लपेटने पर", "hi", True),  # tenth readers: a parcel is wrapped
        ("`optimizer.zero_grad()`, जो भी सीमा का इंतज़ार करता है", "hi", True),
        # Hindi, issue 40 (sixth reader): one word per concept, calques, the window's loss divided
        ("Adam हर update को gradient के अपने running size से भाग देता है", "hi", True),
        ("Adam हर update को gradient के परिमाण के अब तक के औसत से भाग देता है", "hi", False),
        ("momentum के साथ batch sizes साधारण SGD से आगे तक गए", "hi", True),
        ("momentum के साथ batch sizes सादे SGD से आगे तक गए; साधारण mean loss", "hi", False),
        ("Trainer count आगे नहीं भेज पाता; window के token count से", "hi", True),
        ("tokens की गिनती से normalization", "hi", False),
        ("token-count normalization", "hi", True),
        ("Trainer गिनती आगे नहीं भेज पाता; `count`, counter और make_samples(count)", "hi", False),
        ("इस गाइड की हर ग़लती के बावजूद model train होता रहता है", "hi", True),
        ("इस गाइड में बताई गई हर ग़लती के साथ भी", "hi", False),
        ("Accumulation को क्या गणना करनी चाहिए", "hi", True),
        ("Accumulation को क्या निकालना चाहिए; backward के दौरान दोबारा गणना करना", "hi", False),
        ("recipe के per-GPU batch के बराबर", "hi", True),
        ("recipe के प्रति-GPU batch के बराबर", "hi", False),
        ("gradient में noise कम होता है; ज़्यादा noisy statistics", "hi", True),
        ("gradient में शोर कम होता है; शोर-भरे statistics; gradient noise scale; Noise scale से नीचे", "hi", False),
        ("step की दिशा ज़्यादातर शोर होती है", "hi", True),  # शोर is masculine
        ("कुछ गुंजाइश छोड़कर सबसे बड़ा micro-batch; 2 GB का margin", "hi", True),
        ("कुछ headroom छोड़कर सबसे बड़ा micro-batch; summation order के फ़र्क़ की गुंजाइश", "hi", False),
        ("256 examples का batch; हर example का gradient", "hi", True),
        ("256 samples का batch; हर sample का gradient; Accelerate का उदाहरण", "hi", False),
        ("For plain gradient descent, 256 examples per step.", "en", True),
        ("For example, 256 samples; a worked example; PyTorch's Automatic Mixed Precision examples", "en", False),
        ("textbook वाला scale; किताबों वाली recipe", "hi", True),
        ("मानक scale; मानक recipe", "hi", False),
        ("किताबी loop की तरह", "hi", True),  # ninth readers: "bookish"
        ("Adam के लिए square root; square-root नियम", "hi", True),
        ("Adam के लिए वर्गमूल; वर्गमूल नियम", "hi", False),
        ("Accumulation शायद ही कभी शोर मचाकर fail होता है", "hi", True),
        ("यह गाइड हाथ से करने वाले काम की है", "hi", True),
        ("# Reference: पूरी window एक batch के रूप में", "hi", True),
        ("# संदर्भ: पूरी window एक batch के रूप में; Reference runs के नतीजे", "hi", False),
        ("pretrained weights लोड होते ही; `sync_gradients` सेट हो", "hi", True),
        ("pretrained weights load होते ही; `sync_gradients` set हो; पासवर्ड रीसेट", "hi", False),
        ("इस run के लिए DeepSpeed का setting", "hi", True),  # setting is feminine, like settings
        ("इस run के लिए DeepSpeed की setting", "hi", False),
        ("आख़िरी अधूरी window को उसके असली आकार से भाग देते हुए", "hi", True),
        ("आख़िरी window को भी पूरे N से ही भाग दिया जाता है", "hi", True),
        ("आख़िरी, छोटी window अपने ही size से विभाजित होती है", "hi", True),
        ("आख़िरी अधूरी window के loss को उसके असली micro-batches की संख्या से भाग देते हुए", "hi", False),
        ("window के कुल tokens से विभाजित sum; window का loss पूरे accumulation factor से विभाजित होता है", "hi", False),
        ("यहाँ 'आगे' का मतलब", "hi", True),
        ("यहाँ “आगे” का मतलब; Adam's state", "hi", False),
        # Hindi, issue 40 (seventh reader): one word per concept in the quizzes, the exam and the UI
        ("कौन-से statements सही हैं? (सभी सही विकल्प चुनें।)", "hi", True),
        ("कौन-से कथन सही हैं? (सभी सही विकल्प चुनें।)", "hi", False),
        ("लगभग 1e-7 के relative फ़र्क़ तक मिलते हैं", "hi", True),
        ("relative gradient difference लगभग 9e-2 आया", "hi", True),
        ("gradients का relative अंतर लगभग 9e-2 आया; इस फ़र्क़ के बाद भी", "hi", False),
        ("दोनों formulas को token counts n1, …, nN के साथ लिखें", "hi", True),
        ("Summed losses s_i और counts n_i के साथ", "hi", True),
        ("दोनों formulas को tokens की गिनतियों n1, …, nN के साथ लिखें", "hi", False),
        ("आख़िरी partial window बनाता है", "hi", True),
        ("अधूरी आख़िरी window बनाता है", "hi", False),
        ("loss को accumulation steps से भाग देता है", "hi", True),
        ("loss को `gradient_accumulation_steps` (N) से भाग देता है; gradient_accumulation_steps से", "hi", False),
        ("ये हर optimizer step में 4 momentum steps लेते हैं", "hi", True),
        ("सीमा वाले steps को छोड़कर", "hi", True),
        ("ये हर optimizer step में 4 बार update होते हैं; window की सीमा वाले micro-batch को छोड़कर", "hi", False),
        ("यह GroupNorm से एक point के अंदर था", "hi", True),
        ("micro-batch को भी उतना ही 1/N हिस्सा मिलता है", "hi", True),
        ("पहले micro-batches का हिस्सा घट जाता है", "hi", True),
        ("हर micro-batch के हिस्से को एक ही factor से rescale करे", "hi", True),
        ("micro-batch को भी उतना ही 1/N वज़न मिलता है; पहले micro-batches का योगदान घटता है", "hi", False),
        ("micro-batch की activations + fixed हिस्से; run का सिर्फ़ 1/N हिस्सा; mean का कितना हिस्सा", "hi", False),
        ("अनुपात के अंश और हर में से कौन-सा बदलता है?", "hi", True),
        ("इसलिए अनुपात का हर घटता है", "hi", True),
        ("अनुपात के अंश और भाजक में से कौन-सा; हर micro-batch का हर token", "hi", False),
        ("B/G का भाजक पूर्णांक N देता है", "hi", True),
        ("12 का भाजक", "hi", True),
        ("जो B/G को पूरा-पूरा विभाजित करे; mean का भाजक; window के भाजक", "hi", False),
        # Hindi, issue 40 (eighth readers): तक for "up to", one word per concept, -ing nouns feminine
        ("यहाँ सटीक का मतलब है floating-point में जोड़ने के क्रम तक बराबर।", "hi", True),
        ("gradient लगभग 1e-6 relative तक बराबर है", "hi", True),
        ("वे floating-point rounding के फ़र्क़ तक एक जैसी हैं", "hi", True),
        ("एक्यूमुलेशन राउंडिंग तक बिल्कुल सही रहता है", "hi", True),
        ("वे rounding के फ़र्क़ को छोड़कर एक जैसी हैं; 64 तक बराबर; अंत तक सही रहता है", "hi", False),
        ("दूसरा term हावी रहता है; per-sample terms का mean", "hi", True),
        ("दूसरा पद हावी रहता है; हर sample के पदों का mean", "hi", False),
        ("token losses का जोड़ 60 है", "hi", True),
        ("सभी gradients का योग बन जाता है", "hi", True),
        ("token losses का sum 60 है; gradients जोड़ें; योगदान; उपयोग", "hi", False),
        ("सभी GPUs के gradients का average; DDP के gradient averaging को", "hi", True),
        ("सभी GPUs के gradients का mean; moving average; running averages", "hi", False),
        ("gradient पर लगा कोई स्थिर factor कट जाता है", "hi", True),
        ("Lightning loss को factor से भाग देता है", "hi", True),
        ("स्थिर गुणक कट जाता है; accumulation factor से; scaler का गुणक स्थिर रहे", "hi", False),
        ("उसके अपने size के अब तक के औसत से; सिर्फ़ size नहीं; ग़लत परिमाण", "hi", True),
        ("उसके अपने परिमाण के अब तक के औसत से; buffers का size; batch size", "hi", False),
        ("AdamW स्थिर गुणक को रद्द कर देता है", "hi", True),
        ("उन्हें cancel करता है", "hi", True),
        ("AdamW स्थिर गुणक को काट देता है", "hi", False),
        ("हर option के लिए पूछें", "hi", True),
        ("हर विकल्प के लिए पूछें", "hi", False),
        ("एक साथी किसी किसी प्रकाशित recipe का पालन", "hi", True),
        ("एक साथी किसी प्रकाशित recipe का पालन", "hi", False),
        ("पूरा offloading", "hi", True),  # -ing nouns are feminine
        ("पूरी offloading", "hi", False),
        ("उसे असली size से भाग दें या छोड़ दें", "hi", True),
        ("उसके loss को window के असली micro-batches की संख्या से भाग दें", "hi", False),
        ("Optimizer हर micro-batch पर step लेता है; Trainer default में shuffle करता है", "hi", True),
        ("Optimizer हर micro-batch पर step करता है; Trainer default रूप से shuffle करता है", "hi", False),
        ("जो भी सीमा हो", "hi", True),
        ("जो window की सीमा पर भी पड़े", "hi", False),
        # French, issue 40 (eighth readers): one name for the loss scaler, « tenir à jour », calques
        ("fp16 avec un facteur d’échelle de la perte ; le scaler saute le pas", "fr", True),
        ("fp16 avec un GradScaler ; le facteur d’échelle de la perte ; scaler.step() saute le pas", "fr", False),
        ("Une recette maintient une moyenne mobile ; si vous en maintenez une", "fr", True),
        ("Une recette tient à jour une moyenne mobile ; si vous en tenez une à jour", "fr", False),
        ("l’exemple de dix tokens pèse pour la moitié de la mise à jour", "fr", True),
        ("l’exemple de dix tokens compte pour la moitié ; chaque séquence pesant pour moitié", "fr", False),
        ("dans FSDP2, l’interrupteur est une méthode ; les bibliothèques divergent", "fr", True),
        ("dans FSDP2, le réglage est une méthode ; l’exécution peut diverger", "fr", False),
        ("puisque moyenne et somme commutent ; (micro-lot contre N) ; fp16 contre bf16", "fr", True),
        ("(entre micro-lot et N) ; 34,7 % contre 24,1 % ; le choix entre fp16 et bf16", "fr", False),
        ("la taille fantôme ; exact sous accumulation ; le warmup culmine au pas 5", "fr", True),
        ("des lots fantômes ; exact avec l’accumulation ; il atteint son pic au pas 5", "fr", False),
        ("AdamW annule un facteur constant ; le pic mémoire ; une décroissance cosinus", "fr", True),
        ("AdamW neutralise un facteur constant ; le pic de mémoire ; une décroissance en cosinus", "fr", False),
        ("elle ne certifie plus rien ; Mise à jour du mot de passe terminée", "fr", True),
        ("elle n’atteste plus rien ; Réinitialisation du mot de passe terminée", "fr", False),
        # Hindi, issue 40 (eighth readers, the rest): one word per concept, and single calques
        ("दो sizes पर peak memory नापें; दो measurements रेखा तय करते हैं", "hi", True),
        ("दो sizes पर peak memory मापें; दो माप रेखा तय करते हैं", "hi", False),
        ("आम पहला अंदाज़ा; gradient के शोर को नज़रअंदाज़ करना", "hi", True),
        ("आम पहला अनुमान; gradient के शोर को नज़रअंदाज़ करना", "hi", False),
        ("%(effective)s, %(n)s से विभाज्य नहीं है; संख्याएँ बिना शेष के बँट जाती हैं", "hi", True),
        ("%(effective)s, %(n)s से पूरा-पूरा विभाजित नहीं होता", "hi", False),
        ("कम क्रमिक passes; लगभग चार sequential passes; काम को sequential बनाकर", "hi", True),
        ('एक के बाद एक चलने वाले कम passes; train_sampling_strategy="sequential" क्रम रखता है', "hi", False),
        ("तीन norm calculations बेकार जाते हैं; clipping लगभग हर step पर लगती है", "hi", True),
        ("तीन बार norm निकालना बेकार जाता है; clipping लगभग हर step पर लागू होती है", "hi", False),
        ("तीनों curves एक-दूसरे पर पड़ती हैं; Batch के critical size के पास", "hi", True),
        ("तीनों curves एक ही रेखा पर रहती हैं; Batch size के critical batch size के पास", "hi", False),
        ("running statistics micro-batch estimates से बनते हैं", "hi", True),
        ("running statistics micro-batch के अनुमानों से बनते हैं", "hi", False),
        ("resting memory के ऊपर; random initialise किया हुआ; Wu & He; learning rate linear बढ़ना बंद", "hi", True),
        ("पहले से मौजूद memory के ऊपर; random initialize किया हुआ; Wu और He; linear रूप से बढ़ना बंद", "hi", False),
        ('यहाँ "सटीक" का मतलब है; Goyal et al. (2017, "Accurate, Large Minibatch SGD")', "hi", True),
        ("यहाँ “सटीक” का मतलब है; Goyal et al. (2017, “Accurate, Large Minibatch SGD”)", "hi", False),
        ('loss_type = "ForCausalLM" set करने पर; `x = "a"`\n=== "PyTorch"\n', "hi", False),
        # -ing nouns are feminine, also as the subject of a verb further on
        ("ZeRO state बाँटता है, और offloading optimizer state को GPU से बाहर ले जाता है।", "hi", True),
        ("ZeRO state बाँटता है, और offloading optimizer state को GPU से बाहर ले जाती है।", "hi", False),
        ("Activation checkpointing हर layer की activations दोबारा compute करता है।", "hi", True),
        ("Activation checkpointing हर layer की activations दोबारा compute करती है।", "hi", False),
        ("सच है, और overfitting एक ही step में training loss को 4 गुना नहीं घटाता।", "hi", True),
        ("Clipping के बाद gradient छोटा होता है; padding token गिना नहीं जाता", "hi", False),
        ("और fixed clipping threshold को norms दिखते हैं; Adam और clipping इसे छिपा देते हैं", "hi", False),
        # French, issue 40 (ninth readers): elision, calques, exponents and code values in prose
        ("une bande reste, tandis que un motif en dents de scie monte", "fr", True),
        ("Tant que unscale_ n’a pas été appelé", "fr", True),
        ("le gradient de un micro-lot ; si il déborde ; le un ou l’autre ; ce ne est pas", "fr", True),
        ("tandis qu’un motif ; d’un micro-lot ; s’il déborde ; n’est ; l’hypothèse", "fr", False),
        ("que 1 ; de onze pas ; la ou les lignes ; de A ; le N ; le hook", "fr", False),
        ("faites-le avant ; de `x` exemples", "fr", False),
        ("normalisent à travers les exemples ; le modèle mémoire ; la droite mémoire ; sa sonde mémoire", "fr", True),
        ("le pic à N = 8 se compare à celui de N = 1 ; la voie publique ; DDP accroche son all-reduce", "fr", True),
        ("dans toutes les charges de travail", "fr", True),
        ("sur les exemples du lot ; la droite de mémoire ; la mesure de la mémoire ; l’API publique", "fr", False),
        ("au rythme de 0,999^N ; (1 − momentum)^N ; Que signifierait max_norm = 1,0 ?", "fr", True),
        ("au rythme de 0,999ᴺ ; (1 − momentum)ᴺ ; Que signifierait `max_norm=1.0` ? 10⁻⁷", "fr", False),
        ("### Ce que BatchNorm calcule sur un micro-lot", "fr", True),
        ("le facteur W annule cette division ; pour annuler la moyenne", "fr", True),
        ("AdamW annule une erreur d’échelle", "fr", True),
        ("les outils mémoire ; les événements mémoire du profileur", "fr", True),
        ("le facteur W compense cette division ; des gradients identiques annuleraient la variance", "fr", False),
        ("### Ce que la BatchNorm calcule sur un micro-lot\n### Ghost BatchNorm : le même effet", "fr", False),
        # Hindi, issue 40 (ninth readers): a refused verb phrase in every form, plural and spoken
        ("एक ही optimizer step लेकर", "hi", True),
        ("उन पर step लें, 3 से भाग देकर", "hi", True),
        ("दूसरा run N गुना बड़े steps लेता है", "hi", True),
        ("आपको बड़े steps लेने देता है", "hi", True),
        ("बड़ा step लेना।", "hi", True),
        ("optimizer ने step लिया", "hi", True),
        ("एक ही optimizer step करके; उन पर step करें; बड़े steps करता है", "hi", False),
        ("हर step, लेकिन", "hi", False),
        ("step लेकिन हर बार", "hi", False),  # लेकिन is no form of लेना
        ("इसे नापकर देखें", "hi", True),  # नापता refused: every form
        ("इसे मापकर देखें", "hi", False),
        # one wording for curves that coincide, "copies" for replicas, a title in straight quotes
        ("तीनों curves एक-दूसरे पर बैठ जाती हैं", "hi", True),
        ("दोनों curves लगभग एक हो जाती हैं", "hi", True),
        ("loss curves एक-दूसरे के ऊपर ही रहती हैं", "hi", True),
        ("तीनों curves एक ही रेखा पर रहती हैं; दोनों formulas एक हो जाते हैं", "hi", False),
        ("और copies sync में रहती हैं।", "hi", True),
        ("और सभी replicas sync में रहते हैं; model की दो copies बनाएँ", "hi", False),
        ("जिसमें ghost size micro-batch के बराबर है", "hi", True),
        ("जिसमें ghost batch size micro-batch के बराबर है", "hi", False),
        ("Hoffer et al. अपने paper 'Train longer, generalize better' में", "hi", True),
        ("Hoffer et al. अपने paper “Train longer, generalize better” में; reduction='mean' के साथ", "hi", False),
        # a file the glossary genders agrees inside backticks too; से-comparison mixed with जितना
        ("nanoGPT का `train.py` एक सस्ता अनुमान लेता है", "hi", True),
        ("nanoGPT की `train.py` एक सस्ता अनुमान लेती है", "hi", False),
        ("लक्ष्य तक कभी उससे जल्दी नहीं पहुँचता जितना वही micro-batch", "hi", True),
        ("लक्ष्य तक कभी उतनी जल्दी नहीं पहुँचता जितनी जल्दी वही micro-batch", "hi", False),
        # Issue 40, tenth French readers: agreement with a feminine noun (glossary.yaml's french_gender).
        ("La planification du taux d’apprentissage (warmup, puis cosinus) est exprimé en pas", "fr", True),
        ("La planification du taux d’apprentissage (warmup, puis cosinus) est exprimée en pas", "fr", False),
        ("Une planification dure 20 000 pas au total. Il est exprimé en pas d’optimisation.", "fr", True),
        ("Une planification dure 20 000 pas au total. Elle est exprimée en pas d’optimisation.", "fr", False),
        ("et toute la planification est épuisée après 5 000 : il avance 4 fois trop vite", "fr", True),
        ("et toute la planification est épuisée après 5 000 : elle avance 4 fois trop vite", "fr", False),
        ("la planification garde la longueur qu’il aurait sur un seul processus", "fr", True),
        ("la planification garde la longueur qu’elle aurait ; la perte qu’il passe à backward()", "fr", False),
        ("La BatchNorm est gelé ; la PR a été fusionné", "fr", True),
        ("La BatchNorm est gelée ; la perte paraît saine : c’est pour cela qu’il faut la diviser", "fr", False),
        ("Un gradient 8 fois plus petit, puisque chaque perte a été divisée par 8", "fr", False),
        ("Le scheduler est avancée d’un cran", "fr", True),
        # the other classes of the tenth readers
        ("Divisez la dernière fenêtre par sa taille réelle ; la dernière fenêtre est divisée par N", "fr", True),
        ("Divisez la perte de la dernière fenêtre par sa taille ; le micro-lot est divisé par deux", "fr", False),
        ("a réussi l’examen final du Cours sur l’accumulation de gradient", "fr", True),
        ("a réussi l’examen final du cours sur l’accumulation de gradient", "fr", False),
        ("L’endroit variait énormément d’une charge à l’autre", "fr", True),
        ("d’une tâche à l’autre ; chaque processus charge son propre lot ; l’équilibrage de charge", "fr", False),
        ("ne font rien avant une frontière de fenêtre ; aux frontières", "fr", True),
        ("ne font rien avant la fin d’une fenêtre ; en fin de fenêtre", "fr", False),
        ("elles font 4 pas de momentum par pas d’optimisation", "fr", True),
        ("elles sont mises à jour 4 fois par pas d’optimisation", "fr", False),
        ("La version lue intégrale, plus bas, reprend tout le guide section par section.", "fr", True),
        ("En demi-précision, annulez d’abord la mise à l’échelle des gradients", "fr", True),
        ("Une fois par fenêtre : annuler la mise à l’échelle, appliquer le clipping", "fr", True),
        ("retirez d’abord le facteur d’échelle ; des gradients identiques annuleraient la variance", "fr", False),
        ("après chaque erreur de mémoire insuffisante ; après chaque erreur de mémoire", "fr", True),
        ("une erreur de dépassement de mémoire (OOM), puis un dépassement de mémoire", "fr", False),
        ("le cosinus de transformers ; un modèle transformers", "fr", True),
        ("le cosinus de Transformers ; transformers 5.24.0 ; transformers#24725 ; les transformers", "fr", False),
        ("Sélectionnez toutes les réponses qui conviennent.", "fr", True),
        ("Cochez toutes les bonnes réponses.", "fr", False),
        ("Trois exécutions voient les mêmes exemples ; comparez les trois exécutions", "fr", True),
        ("Trois entraînements voient les mêmes exemples ; dans nos exécutions, il s’est bloqué", "fr", False),
        ("Seul l’ordre des additions flottantes change ; Ce que cela achète", "fr", True),
        ("Seul l’ordre des additions en virgule flottante change ; Ce que l’on y gagne", "fr", False),
        # Issue 40, eleventh French readers: a refused phrase in its inflected forms
        ("Les erreurs de mémoire et les statistiques de la BatchNorm", "fr", True),
        ("une erreur mémoire ; deux erreurs mémoire", "fr", True),
        ("Les dépassements de mémoire et une erreur de dépassement de mémoire (OOM)", "fr", False),
        ("Certaines pertes couplent les exemples ; la BatchNorm couple les exemples", "fr", True),
        ("Certaines pertes rendent interdépendants les exemples ; une mémoire d’activations", "fr", False),
        ("Le backward() ajoute dans .grad ; les gradients s’ajoutent dans .grad", "fr", True),
        ("Le backward() accumule dans .grad ; les gradients s’accumulent dans .grad", "fr", False),
        # a call to clip_grad_norm_ always runs; the clipping acts
        ("dès que l’un des premiers appels se déclenche", "fr", True),
        ("Si aucun des trois premiers appels ne se déclenche ; Celui qui se déclenche", "fr", True),
        ("Quand l’un d’eux se déclenche ; si aucun ne se déclenche avant le dernier", "fr", True),
        ("Chaque fois qu’un appel précédent se déclenche", "fr", True),
        ("le clipping à 1,0 se déclenche plus souvent ; la norme dépasse max_norm lors de l’appel", "fr", False),
        # the loss of the last window is divided, with an adverb between the verb and its object too
        ("Accelerate et Lightning divisent encore la dernière fenêtre par le N complet", "fr", True),
        ("Accelerate et Lightning divisent toujours la perte de la dernière fenêtre par le N complet", "fr", False),
        # an elliptic « …, seulement si … » has no verb of its own
        ("donc, dès que le micro-lot est au-dessus, seulement si ce coût dépasse le pas", "fr", True),
        ("Par l’accumulation, seulement si le coût fixe dépasse le pas", "fr", True),
        ("l’accumulation n’est donc rentable que si ce coût dépasse ; exactement, mais seulement si", "fr", False),
        # one name for DeepSpeed's G
        ("multiplié par le nombre de réplicas en parallélisme de données", "fr", True),
        ("multiplié par le nombre de rangs de parallélisme de données ; les réplicas de DDP", "fr", False),
        # « bloqué » reads as a hang; the rate is not a scale on the gradient
        ("synchronisation DDP bloquée ; Lightning bloque la synchronisation DDP", "fr", True),
        ("synchronisation DDP suspendue ; l’ordre inverse peut bloquer", "fr", False),
        ("avec Adam, le taux d’apprentissage n’est pas une échelle du gradient", "fr", True),
        ("avec Adam, le taux d’apprentissage ne multiplie pas simplement le gradient", "fr", False),
        # Issue 40, twelfth French readers: a verb and its preposition with words between them
        ("Appeler backward(), qui ajoute le résultat dans .grad", "fr", True),
        ("Le backward de chaque micro-lot ajoute le gradient de la pénalité dans `.grad`", "fr", True),
        (
            "backward() ajoute le gradient de chaque micro-lot à `.grad` ; il accumule le résultat dans .grad",
            "fr",
            False,
        ),
        ("on ajoute un test. Dans la 5.24.0, rien ne change", "fr", False),  # a sentence between them
        # the calque of "buys"
        ("l’accumulation est un achat. Elle achète une taille de lot plus grande", "fr", True),
        ("Bien au-dessus, elle n’achète presque rien.", "fr", True),
        ("elle relève d’un arbitrage : on y gagne des pas ; on n’y gagne presque rien", "fr", False),
        # one name for the normalization by the number of tokens
        ("Normalisation par token sur un tout petit modèle ; une perte normalisée par token", "fr", True),
        ("Normalisation par le nombre de tokens ; la moyenne par token ; la perte par token", "fr", False),
        # a release takes its article
        ("En 5.24.0, deux cas restent faux ; mesurées en 4.46.0", "fr", True),
        ("Dans la 5.24.0, deux cas restent faux ; depuis la 4.46.0 ; en 2024 ; en 0,5 s", "fr", False),
        # « dépassement » alone is the out-of-memory error; an overflow is « dépassement de capacité »
        ("risque de dépassement en fp16", "fr", True),
        ("risque de dépassement de capacité en fp16 ; un dépassement de mémoire en bf16", "fr", False),
        # « peser pour moitié » is the idiom; « pèse pour » with anything else is a calque
        ("chaque token pèse pour 1/6 de la perte ; les deux pèsent pour la moitié", "fr", True),
        ("chaque séquence pesant pour moitié ; elle pèse pour un tiers ; un token pèse 1/6", "fr", False),
        # one kind of average, one name
        ("Adam divise par une estimation glissante de l’amplitude ; la moyenne glissante oublie", "fr", True),
        ("Adam divise le gradient par sa propre échelle glissante", "fr", True),
        ("Adam divise par une moyenne mobile exponentielle ; les statistiques glissantes de la BatchNorm", "fr", False),
        # a norm's name as a subject or an object takes its article, in a list too
        ("GroupNorm ou InstanceNorm remplacent la BatchNorm. Choisissez GroupNorm ou LayerNorm.", "fr", True),
        ("Les solutions habituelles sont LayerNorm ou GroupNorm.", "fr", True),
        ("la GroupNorm ou InstanceNorm remplacent ; Utiliser SyncBatchNorm, pour que", "fr", True),
        ("qui appelle la GroupNorm, SyncBatchNorm ou des statistiques gelées", "fr", True),
        (
            "La GroupNorm ou l’InstanceNorm remplacent la BatchNorm ; choisissez la GroupNorm ou la LayerNorm ; "
            "des couches LayerNorm ou GroupNorm ; trois couches : LayerNorm, RMSNorm et BatchNorm ; "
            "(GroupNorm, BatchNorm gelée) ; [LayerNorm, RMSNorm et BatchNorm](/fr/labs/x/) ; Sans SyncBatchNorm, "
            "chaque GPU ; la SyncBatchNorm",
            "fr",
            False,
        ),
        # a feminine plural antecedent takes « elles »
        ("ces dépendances restent confinées à chaque micro-lot ; avec un grand lot, ils relient", "fr", True),
        (
            "ces dépendances restent confinées ; avec un grand lot, elles relient ; "
            "les pertes, dont les gradients sont grands, ils",
            "fr",
            False,
        ),
        # a parenthesis opened and never closed
        ("sur toute la fenêtre ([trainer.py](https://x/trainer.py#L2343). Pour un modèle", "fr", True),
        ("sur toute la fenêtre ([trainer.py](https://x/trainer.py#L2343)). Pour un modèle", "fr", False),
        ("# GradCache : 1) embeddings ; 2) perte ; la somme (20 + 30) / (10 + 30) ; `f(x` ; $g(x$", "fr", False),
        # Issue 40, thirteenth French readers: a gradient's magnitude is no « taille »
        ("Adam divise chaque mise à jour par la taille moyenne récente du gradient", "fr", True),
        ("AdamW divise le gradient par sa propre taille", "fr", True),
        ("le bruit d’un seul exemple à la taille du vrai gradient", "fr", True),
        ("sur la direction du gradient et pas seulement sur la longueur du gradient", "fr", True),
        (
            "par l’amplitude moyenne récente du gradient ; sa propre amplitude ; la norme du vrai gradient ; "
            "sa perte est divisée par sa taille réelle ; la taille du micro-lot ; la longueur des séquences",
            "fr",
            False,
        ),
        # a bug does not hide; Adam masks it
        ("Avec Adam, l’erreur se cache", "fr", True),
        ("car Adam cache une perte trop grande", "fr", True),
        ("Avec Adam, l’erreur passe inaperçue, car Adam masque une perte ; Accelerate cache la boucle", "fr", False),
        # the logged loss: the divided loss, multiplied by N
        ("au lieu de la vraie perte, c’est-à-dire perte × N", "fr", True),
        ("au lieu de la vraie perte, c’est-à-dire la perte divisée, multipliée par N ; (perte ÷ N)", "fr", False),
        # ghost batches: one name, glossed once
        ("découpe un grand lot en petits lots virtuels", "fr", True),
        ("une ghost BatchNorm dont les lots virtuels ont la taille du micro-lot", "fr", True),
        ("en petits lots fantômes (des lots virtuels, pour la normalisation) ; un lot fantôme", "fr", False),
    ],
)
def test_the_check_flags_forbidden_variants_and_only_those(text, lang, flagged):
    assert bool(violations(text, lang)) is flagged


def test_the_token_count_is_refused_in_the_course_and_an_account_is_not_in_the_ui():
    """« le compte » of `num_items_in_batch` is « le décompte » in the course's texts; the site's
    words keep « compte » for the learner's account (issue 40, third French reader)."""
    assert violations("Le Trainer ne peut pas transmettre le compte.", "fr")
    assert not violations("Le Trainer ne peut pas transmettre le décompte.", "fr")
    assert not violations("Ce compte est inactif. Sans compte, le formulaire montre le résultat.", "fr", content=False)
    assert violations("il divise aussi quand aucun compte n’a été calculé", "fr")  # fifth reader
    assert not violations("il divise aussi quand aucun décompte n’a été calculé", "fr")


def test_the_site_says_prashn_and_uttar_and_the_course_keeps_saval():
    """The UI's questions and answers are प्रश्न and उत्तर, and save is सहेजना; the course's texts
    keep सवाल (its FAQ heading), and a worker that stops responding still "जवाब देना बंद कर देता है"
    (issue 40, sixth Hindi reader)."""
    assert violations("प्रश्न-बैंक से चुने गए 30 सवाल, कम से कम 70% सही जवाबों के साथ", "hi", content=False)
    assert violations("आपका नाम सेव हो गया।", "hi", content=False)
    assert not violations("प्रश्न-बैंक से चुने गए 30 प्रश्न, कम से कम 70% सही उत्तरों के साथ", "hi", content=False)
    assert not violations("Worker ने कई बार जवाब देना बंद कर दिया। आपका नाम सहेज लिया गया।", "hi", content=False)
    assert not violations("सवाल की बुनियाद ही ग़लत है।", "hi")
    # Hindi, issue 40 (ninth readers): the learning objectives are उद्देश्य, as on the dashboard
    assert violations("प्रश्न ऊपर दिए objectives जाँचते हैं", "hi", content=False)
    assert not violations("प्रश्न ऊपर दिए उद्देश्य जाँचते हैं", "hi", content=False)


# A name from code keeps its case. The rule that capitalises the English word opening a Hindi
# sentence once turned `model.no_sync()` into "Model.no_sync()" (issue 40), a name that does not exist:
# a translation may not carry the capitalised form of a name its English text writes in lower case.
CODE_NAME_RE = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.\w+)*(?:\(\)|\.\w+)|(?<![\w.])[A-Za-z]\w*_\w+")


def capitalised_code_names(text: str, english: str) -> list[str]:
    names = set(CODE_NAME_RE.findall(english))
    return sorted(
        name
        for name in set(CODE_NAME_RE.findall(text))
        if name[0].isupper() and name not in names and name[0].lower() + name[1:] in names
    )


def localized_pairs(node, lang: str):
    """(translation, English) of every text in a quiz file."""
    if isinstance(node, dict):
        if set(LANGUAGES) <= node.keys():
            yield str(node[lang]), str(node["en"])
            return
        for value in node.values():
            yield from localized_pairs(value, lang)
    elif isinstance(node, list):
        for value in node:
            yield from localized_pairs(value, lang)


def test_the_code_name_check_flags_a_capitalised_name():
    english = "DistributedDataParallel with N = 4. How should model.no_sync() be used?"
    assert capitalised_code_names("N = 4 है। Model.no_sync() का इस्तेमाल कैसे करें?", english) == ["Model.no_sync()"]
    assert capitalised_code_names("N = 4 है। इसमें model.no_sync() का इस्तेमाल कैसे करें?", english) == []
    assert capitalised_code_names("Loss_fn लें।", "Take loss_fn.") == ["Loss_fn"]
    assert capitalised_code_names("DistributedDataParallel.", english) == []  # its own capital


@pytest.mark.parametrize("lang", ["hi", "fr"])
def test_a_name_from_code_keeps_its_case_when_it_opens_a_sentence(lang):
    found = []
    for folder in guide_folders(CONTENT_DIR):
        text, english = ((folder / f"{name}.md").read_text(encoding="utf-8") for name in (lang, "en"))
        found += [f"{folder.name}/{lang}.md: {name}" for name in capitalised_code_names(text, english)]
    for slug, path in quiz_files(CONTENT_DIR):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        for text, english in localized_pairs(data, lang):
            found += [f"{slug}/quiz.yaml: {name}" for name in capitalised_code_names(text, english)]
    for english, text in translations(LOCALE_DIR / lang / "LC_MESSAGES" / "django.po"):
        found += [f"django.po: {name}" for name in capitalised_code_names(text, english)]
    assert found == []


def test_the_code_opening_check_flags_a_lower_case_name_and_not_a_reworded_one():
    assert code_openings("पहला। transformers Trainer के कुछ releases\n## torchtune ने इसे ठीक किया\n") == [
        "transformers",
        "torchtune",
    ]
    assert code_openings("पहला। Transformers के Trainer के कुछ releases; nanoGPT की train.py\n") == []
    assert code_openings("bf16 में loss scaler नहीं होता।") == ["bf16"]
    assert code_openings("Bf16 में loss scaler नहीं होता।") == []


@pytest.mark.parametrize("folder", list(guide_folders(CONTENT_DIR)), ids=lambda folder: folder.name)
def test_no_hindi_sentence_opens_with_a_lower_case_code_name(folder):
    assert code_openings((folder / "hi.md").read_text(encoding="utf-8")) == []


def test_no_hindi_quiz_sentence_or_ui_sentence_opens_with_code():
    found = []
    for slug, path in quiz_files(CONTENT_DIR):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        for key, text in localized_by_key(data, "hi"):
            if key in QUIZ_SENTENCE_KEYS:
                found += [f"{slug}: {name} ({text[:40]}…)" for name in quiz_code_openings(text)]
    for _english, text in translations(LOCALE_DIR / "hi" / "LC_MESSAGES" / "django.po"):
        found += [f"django.po: {match.group(1)} ({text[:40]}…)" for match in PO_CODE_OPENING_RE.finditer(text)]
    assert found == []


def test_the_quiz_code_opening_check_flags_a_call_and_not_a_reworded_sentence():
    assert quiz_code_openings("backward() .grad में जोड़ता है। weight= और `reduction` के साथ") == ["backward()", "weight="]
    assert quiz_code_openings("पहला। loss / N वह है जो backward() को चाहिए") == ["loss"]
    assert quiz_code_openings("हर backward() .grad में जोड़ता है। Loss / N वह है") == []
    assert [m.group(1) for m in PO_CODE_OPENING_RE.finditer("steps: पहला। fp16 run में")] == ["fp16"]
    assert [m.group(1) for m in PO_CODE_OPENING_RE.finditer("steps: पहला। Fp16 run में")] == []


def test_the_check_reads_a_spoken_summarys_devanagari_terms():
    assert violations("कोई एरर नहीं आता।", "hi", spoken=True)  # error is feminine
    assert not violations("कोई एरर नहीं आती।", "hi", spoken=True)
    assert not violations("गाइड एक छोटी टेस्ट फ़ाइल देती है", "hi", spoken=True)  # the file is small
    assert not violations("मॉडल को ग्रेडिएंट मिलता है", "hi", spoken=True)  # Devanagari terms are the rule here
    assert violations("मान लीजिए", "hi", spoken=True)
    # Hindi, issue 40 (third reader): activations are feminine, spoken as everywhere else, one spelling
    assert violations("एक्यूमुलेशन से सिर्फ़ एक्टिवेशन घटते हैं।", "hi", spoken=True)
    assert not violations("एक्यूमुलेशन से सिर्फ़ एक्टिवेशन घटती हैं।", "hi", spoken=True)
    assert violations("ऐक्टिवेशन चेकपॉइंटिंग", "hi", spoken=True)
    assert violations("बैच नॉर्मलाइज़ेशन सिर्फ़ माइक्रो-बैच को देखता है", "hi", spoken=True)
    assert not violations("बैच नॉर्म सिर्फ़ माइक्रो-बैच को देखता है; ग्रुप नॉर्मलाइज़ेशन वाला पेपर", "hi", spoken=True)
    assert violations("लूप की तुलना से वह चलते हुए जोड़ को दोबारा स्केल करता है", "hi", spoken=True)
    # Hindi, issue 40 (sixth reader): the data point is सैंपल; उदाहरण is an illustration; लोड is said
    assert violations("रेसिपी दो सौ छप्पन उदाहरणों का बैच माँगती है", "hi", spoken=True)
    assert violations("ताकि कोई लंबा उदाहरण घंटों बाद ट्रेनिंग को क्रैश न कर दे", "hi", spoken=True)
    assert not violations("रेसिपी दो सौ छप्पन सैंपलों का बैच माँगती है। एक छोटा उदाहरण।", "hi", spoken=True)
    assert not violations("उदाहरण के लिए, मिक्सचर-ऑफ़-एक्सपर्ट्स के लोड-बैलेंसिंग लॉस", "hi", spoken=True)
    assert violations("बैच के अनुपात का स्क्वेयर रूट; रेसिपी निभाने", "hi", spoken=True)
    assert violations("जो थोड़ी गुंजाइश के साथ आपके बजट में आए", "hi", spoken=True)
    assert not violations("जो थोड़ा हेडरूम छोड़कर आपके बजट में आए", "hi", spoken=True)
    # Hindi, issue 40 (ninth readers): the voice says योग for a sum, and the critical batch size in full
    assert violations("फिर हर माइक्रो-बैच के टोकन लॉस के जोड़ को", "hi", spoken=True)
    assert not violations("फिर हर माइक्रो-बैच के टोकन लॉस के योग को; लूप उन्हें जोड़ता है", "hi", spoken=True)
    assert violations("क्रिटिकल साइज़ से नीचे", "hi", spoken=True)
    assert violations("इससे आप बड़े स्टेप ले सकते हैं; ऑप्टिमाइज़र अपना स्टेप लेता है", "hi", spoken=True)
    assert not violations("इससे आप बड़े स्टेप कर सकते हैं; ऑप्टिमाइज़र अपना स्टेप करता है", "hi", spoken=True)
    assert not violations("क्रिटिकल बैच साइज़ से नीचे", "hi", spoken=True)


def test_the_site_keeps_its_devanagari_load_and_set():
    """The UI says "पेज दोबारा लोड करें" and "पासवर्ड रीसेट": `hindi_refused_in_content` is the course's."""
    assert not violations("गाइड लोड हो रही हैं। पेज दोबारा लोड करें।", "hi", content=False)
    assert violations("गाइड लोड हो रही हैं।", "hi")


# English, issue 40 (fourth reader): G is the number of GPUs in every guide (B = b × N × G); guide 6
# wrote G for the true gradient too (|G|², G_B, Gᵀ H G), next to b × N × G. The gradient is g there.
GRADIENT_NAMED_G_RE = re.compile(r"\|G(?:[|_]|\\?_)|\bG_(?:B|b|\{)|G\^\\top|G\^T\b|\\mathcal\{G\}")


def gradients_named_g(text: str, lang: str = "en") -> list[str]:
    """Math and plain-text formulas included: the letter is read where a formula writes it."""
    return [
        f"{match.group()!r} (G is the number of GPUs; write g for a gradient)"
        for match in GRADIENT_NAMED_G_RE.finditer(text)
    ]


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        (r"$\mathbb{E}\,|G_B|^2 = |G|^2 + \frac{\operatorname{tr}(\Sigma)}{B}$", True),
        ("Using E|G_B|² = |G|² + tr(Σ)/B, estimate", True),
        (r"$B_{\text{noise}} = \operatorname{tr}(H\Sigma) / (G^\top H G)$ and $|\mathcal{G}|^2$", True),
        (
            r"$\mathbb{E}\,|g_B|^2 = |g|^2 + \frac{\operatorname{tr}(\Sigma)}{B}$, global batch $b \times N \times G$",
            False,
        ),
        ("on $G$ GPUs the scheduler moves $G$ steps", False),
    ],
)
def test_the_gpu_letter_check_flags_a_gradient_named_g(text, flagged):
    assert bool(gradients_named_g(text)) is flagged


def test_g_names_the_gpus_and_never_a_gradient():
    found = []
    for folder in guide_folders(CONTENT_DIR):
        for name in [*(f"{lang}.md" for lang in LANGUAGES), *(f"summary.{lang}.txt" for lang in LANGUAGES)]:
            found += [
                f"{folder.name}/{name}: {hit}" for hit in gradients_named_g((folder / name).read_text(encoding="utf-8"))
            ]
    for slug, path in quiz_files(CONTENT_DIR):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        for lang in LANGUAGES:
            found += [
                f"{slug}/quiz.yaml/{lang}: {hit}" for hit in gradients_named_g("\n".join(localized_strings(data, lang)))
            ]
    assert found == []


# The course's main bug is a missing division by N. Code blocks divide on the line before the
# backward; a sentence or a quiz text that quotes the scaler call alone shows the whole rule, so
# it shows the division too (issue 40: guide 5 wrote `scaler.scale(loss).backward()`).
UNDIVIDED_SCALED_BACKWARD_RE = re.compile(r"scaler\.scale\(\s*loss\s*\)\.backward\(\)")


def undivided_scaled_backwards(text: str) -> list[str]:
    return UNDIVIDED_SCALED_BACKWARD_RE.findall(text)


def scaled_backward_texts():
    for folder in guide_folders(CONTENT_DIR):
        for lang in LANGUAGES:
            for name in (f"{lang}.md", f"summary.{lang}.txt"):
                path = folder / name
                yield pytest.param("\n".join(prose_lines(path.read_text(encoding="utf-8"))), id=f"{folder.name}/{name}")
    for slug, path in quiz_files(CONTENT_DIR):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        for lang in LANGUAGES:
            yield pytest.param("\n".join(localized_strings(data, lang)), id=f"{slug}/quiz.yaml/{lang}")


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("each micro-batch calls `scaler.scale(loss).backward()`", True),
        ("each micro-batch calls `scaler.scale(loss / N).backward()`", False),
        ("```python\nloss = loss_fn(model(x), y) / N\nscaler.scale(loss).backward()\n```\n", False),
    ],
)
def test_the_scaled_backward_check_flags_a_quoted_call_without_the_division(text, flagged):
    assert bool(undivided_scaled_backwards("\n".join(prose_lines(text)))) is flagged


@pytest.mark.parametrize("text", list(scaled_backward_texts()))
def test_a_quoted_scaled_backward_shows_the_division(text):
    assert undivided_scaled_backwards(text) == []


# Issue 40 (seventh Hindi reader): the options are shuffled on every attempt (quizzes/drawing.py), so a
# hint or an explanation names an option by what it says, never by a letter ("(option c)", « l’option c »).
OPTION_LETTER_RE = re.compile(
    r"(?<![\w’'])(?i:options?|l’option|l'option|विकल्प|answers?|réponses?)\s*"
    r"(?:\([a-fA-F]\)|[A-F](?![\w’'])|[a-f](?=\s*[),.;:।]|$))"  # "(c)", "B", "c)" or "c," (not "an option a learner")
)


def options_named_by_letter(node) -> list[str]:
    """Each letter-named option in the hints and explanations of a quiz file, in every language."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in {"hint", "explanation"}:
                found += [match.group() for lang in LANGUAGES for match in OPTION_LETTER_RE.finditer(str(value[lang]))]
            else:
                found += options_named_by_letter(value)
    elif isinstance(node, list):
        for value in node:
            found += options_named_by_letter(value)
    return found


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("a quarter of the learning rate (option c) or a series of steps (option d).", True),
        ("un quart du taux d’apprentissage (option c), soit une suite de pas", True),
        ("सीधी small-batch training है (option c), या (विकल्प d)", True),
        ("Option B is tempting", True),
        ("the “step() after every micro-batch” option; an option a learner picks; options are shuffled", False),
    ],
)
def test_the_option_letter_check_flags_a_letter(text, flagged):
    node = {"explanation": dict.fromkeys(LANGUAGES, text)}
    assert bool(options_named_by_letter(node)) is flagged


@pytest.mark.parametrize(("slug", "path"), quiz_files(CONTENT_DIR), ids=[slug for slug, _ in quiz_files(CONTENT_DIR)])
def test_no_hint_or_explanation_names_an_option_by_letter(slug, path):
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    assert options_named_by_letter(data) == []


CLOSING_LINE_FR = "La lecture intégrale, plus bas, reprend le guide section par section."


@pytest.mark.parametrize("folder", list(guide_folders(CONTENT_DIR)), ids=lambda folder: folder.name)
def test_french_spoken_summaries_close_with_the_same_line(folder):
    """Issue 40, tenth French reader A: every spoken summary closes with one line, heard seven times; it
    was « La version lue intégrale … » (two adjectives in an order French does not use)."""
    lines = (folder / "summary.fr.txt").read_text(encoding="utf-8").strip().splitlines()
    assert lines[-1] == CLOSING_LINE_FR


def test_the_gender_check_reads_the_glossary():
    """The nouns and genders come from glossary.yaml's french_gender: a noun added there is checked."""
    assert GLOSSARY["french_gender"]["planification"] == "f"
    assert {noun for noun, _ in GENDER_PATTERNS} == set(GLOSSARY["french_gender"])


# Hindi, issue 40 (tenth readers): each check they asked for, on the text they quoted and on its fix.
TORCHTUNE = "PyTorch की torchtune library हर micro-batch के mean loss को उसके अपने tokens की गिनती से गुणा"


@pytest.mark.parametrize(
    ("text", "content", "spoken", "flagged"),
    [
        (f"{TORCHTUNE} करता है", True, False, True),
        (f"{TORCHTUNE} करती है", True, False, False),
        ("जब micro-batches का आकार बराबर हो", True, False, True),
        ("यह data पर निर्भर है, model के आकार पर नहीं", True, False, True),
        ("जब micro-batch size बराबर हो; आकार $b$ के micro-batches; model size पर नहीं", True, False, False),
        ("Factor 1/N = 1/8 = 0.125 है।", True, False, True),
        ("गुणक 1/N = 1/8 = 0.125 है; accumulation factor (N)", True, False, False),
        ("Trainer पूरी window के non-ignored label tokens गिन लेता है", True, False, True),
        ("Trainer पूरी window के scored tokens गिन लेता है", True, False, False),
        ("आकार के क्रम (order of magnitude) का अनुमान", True, False, True),
        ("मान दस के किस घात के आसपास है (order of magnitude)", True, False, False),
        ("attention scores, normalization के आँकड़े, वगैरह", True, False, True),
        ("हर micro-batch अपने ही आँकड़ों से normalize होता है", True, False, True),
        ("Peak का एक आँकड़ा; कौन-से आँकड़े speed की तुलना करते हैं; अपने ही statistics से", True, False, False),
        ("Worker और कतार", False, False, True),
        ("Worker और क़तार", False, False, False),
        ("इसके ऊपर माइक्रो-बैच की गिनती से भाग न दें।", True, True, True),
        ("इसके ऊपर माइक्रो-बैचों की संख्या से फिर भाग न दें; हर माइक्रो-बैच के टोकन की गिनती", True, True, False),
        ("आर-एम-एस नॉर्म अपने आँकड़े एक ही सैंपल के अंदर निकालते हैं", True, True, True),
        ("इसे बताने वाला आँकड़ा है ग्रेडिएंट नॉइज़ स्केल; अपने स्टैटिस्टिक्स", True, True, False),
        ("अगर किसी ईपॉक की आख़िरी विंडो छोटी है", True, True, True),
        ("अगर किसी एपॉक की आख़िरी विंडो छोटी है", True, True, False),
    ],
)  # fmt: skip
def test_the_tenth_hindi_readers_checks(text, content, spoken, flagged):
    assert bool(violations(text, "hi", content=content, spoken=spoken)) == flagged


# Hindi, issue 40 (eleventh readers): each class they found, on the text they quoted and on its fix.
@pytest.mark.parametrize(
    ("text", "content", "spoken", "flagged"),
    [
        ("Window के अंत में DDP दोनों replicas के gradients का औसत लेता है", True, False, True),
        ("DDP का all-reduce ranks के gradients के साथ क्या करता है: sum या औसत?", True, False, True),
        ("फिर clipping औसत निकाला हुआ gradient देखती है", True, False, True),
        ("W का गुणक औसत में W से भाग देने का असर काट देता है", True, False, True),
        ("DDP gradients का mean लेता है: sum या mean? फिर clipping mean gradient देखती है", True, False, False),
        ("weights का औसत (EMA, अगर रखते हैं); Adam gradient के परिमाण के अब तक के औसत से भाग देता है", True, False, False),
        ("दोनों curves लगभग एक जैसी रहती हैं: Adam", False, False, True),
        ("loss curves को एक-दूसरे पर रखकर देखें। वे rounding के फ़र्क़ को छोड़कर एक जैसी हैं", True, False, True),
        ("दोनों curves लगभग एक ही रेखा पर रहती हैं; memory चारों runs में एक जैसी है", False, False, False),
        ("किन setups में gradient accumulation factor से दो बार विभाजित होता है?", True, False, True),
        ("किन setups में gradient, accumulation factor N से दो बार विभाजित होता है?", True, False, False),
        ("तो लॉस को इस गिनती से भाग देने का काम उसी पर छोड़ दें", True, True, True),
        ("गुणा डेटा-पैरेलल रैंक की गिनती; प्रोसेस की गिनती से गुणा", True, True, True),
        ("तो लॉस को माइक्रो-बैचों की संख्या से भाग दें; रैंकों की संख्या; टोकन की गिनती", True, True, False),
        ("वह आंशिक रूप से उलट जाता है", True, False, True),
        ("वह आंशिक रूप से बेअसर हो जाता है; Line 4 में शर्त उलटी है", True, False, False),
        ("### एक हल किया हुआ उदाहरण: 10 tokens बनाम 100", True, False, True),
        ("### हल सहित उदाहरण: 10 tokens बनाम 100", True, False, False),
        ("दशमलव के चार अंकों तक जवाब दें। दशमलव के तीन अंकों तक बताएँ।", True, False, True),
        ("जवाब दशमलव के चार अंकों तक दें।", True, False, False),
        ("हर मूल्यांकन पर validation loss; प्रतिस्थापित।", False, False, True),
        ("हर evaluation पर validation loss; नए प्रमाणपत्र से बदला गया।", False, False, False),
    ],
)  # fmt: skip
def test_the_eleventh_hindi_readers_checks(text, content, spoken, flagged):
    assert bool(violations(text, "hi", content=content, spoken=spoken)) == flagged


@pytest.mark.parametrize(
    ("text", "content", "spoken", "flagged"),
    [
        ("Adam हर update को gradient के आकार के अब तक के औसत से भाग देता है", True, False, True),
        ("Adam हर update को gradient के परिमाण के अब तक के औसत से भाग देता है", True, False, False),
        ("AdamW gradient को उसके अपने आकार से भाग देता है", True, False, True),
        ("Parameters और optimizer state का आकार वही रहता है; vocabulary का आकार", True, False, False),
        ("window का असली आकार इस्तेमाल करता है", True, False, True),
        ("window को उसकी असली लंबाई से भाग देना", True, False, True),
        ("window के असली micro-batches की संख्या इस्तेमाल करता है", True, False, False),
        ("तब बचे हुए steps अतिरिक्त samples पर भारी पड़ते हैं।", True, False, True),
        ("**Library upgrades की रखवाली।**", True, False, True),
        ("# batch की हर दूसरी key query i के लिए negative है", True, False, True),
        ("# batch की बाक़ी सभी keys query i के लिए negatives हैं", True, False, False),
        ("गाइड के हल किए हुए उदाहरण में एक GPT2LMHeadModel", True, False, True),
        ("गाइड के हल सहित उदाहरण में एक GPT2LMHeadModel", True, False, False),
        ("0.8 सिर्फ़ GPUs की गिनती से scale करता है", True, False, True),
        ("16 हर step के forward/backward passes की गिनती है", True, False, True),
        ("4 ghost batches की गिनती है, उनका size नहीं", True, False, True),
        ("Calls की गिनती घटाने के लिए", True, False, True),
        ("ज़्यादा सैंपल बेकार जाते हैं: स्टेप की गिनती मुश्किल से बदलती है", True, True, True),
        ("0.8 सिर्फ़ GPUs की संख्या से; window के tokens की कुल गिनती; micro-batches की गिनती अलग", True, False, False),
        ("इसी नियम को उल्टा पढ़ें; उल्टे क्रम में; इसी लिए", True, False, True),
        ("इसी नियम को उलटा पढ़ें; उलटे क्रम में; इसीलिए", True, False, False),
        ("window का loss optimizer steps के सामने log करें", True, False, True),
        ("window का loss optimizer steps के हिसाब से log करें", True, False, False),
        ("Log-log plot पर batch size के सामने steps की curve", True, False, True),
        ("Log-log plot पर batch size के हिसाब से steps की curve", True, False, False),
    ],
)  # fmt: skip
def test_the_twelfth_hindi_readers_checks(text, content, spoken, flagged):
    assert bool(violations(text, "hi", content=content, spoken=spoken)) == flagged
