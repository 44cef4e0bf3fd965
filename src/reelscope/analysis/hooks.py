# ruff: noqa: E501  (the cue tables read best one rule per line)
"""Hooks (spec §4.7, §2.6 ``hook_text``/``hook_type``/``visual_hook_type``): a video's opening line and
what kind of opening it is.

Pure and rule-based, so every label can be explained by the cue that produced it::

    hook = extract_hook(transcript="okay so, nobody talks about this trick. ...", caption="...")
    hook.text                      # "nobody talks about this trick"
    classify(hook.text)            # "secret_reveal"
    visual_type(caption, hashtags, is_duet=..., is_stitch=...)  # "duet_split_screen" or None
    categorize(caption, hashtags)  # "fitness" or None

* ``extract_hook``: the first sentence of the transcript (spoken fillers such as "okay so" dropped),
  else the first line of the caption that still has words once hashtags, mentions and links are gone.
* ``classify``: the first rule of ``_RULES`` whose cue matches, in English, Spanish, Portuguese, German
  and French; ``statement`` when none does. The order is the tie-break: a question mark beats a number,
  a number-led list beats the mistake it lists, and so on.
* ``visual_type``: what the video *shows* is not in the catalog (no frames), so it is inferred only from
  evidence the data holds: the platform's duet/stitch flags and explicit caption or hashtag cues
  (``#greenscreen``, ``#grwm``, "before and after" ...). Without such evidence it is ``None``: unknown,
  never a guess.
* ``categorize``: the corpus vocabulary of categories, from hashtag and caption keywords.
* ``normalize``: the matching form used by hook search: casefolded words joined by single spaces, with
  punctuation, emoji and line breaks gone (§4.7 "whole-word matching ignores punctuation, emoji and
  line breaks").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

# the 17 hook types (§4.7 names question, bold_claim, tutorial_promise, pov_setup)
QUESTION = "question"  # asks the viewer something: "Why is no one talking about X?"
BOLD_CLAIM = "bold_claim"  # a superlative or life-changing claim: "The only X tip you need"
TUTORIAL_PROMISE = "tutorial_promise"  # promises the how: "How to ...", "Here's how I ..."
POV_SETUP = "pov_setup"  # a role-play frame: "POV: you ..."
CURIOSITY_GAP = "curiosity_gap"  # withholds the payoff: "Wait for the end...", "You won't believe"
SECRET_REVEAL = "secret_reveal"  # noqa: S105  (a label, not a secret); hidden knowledge: "Nobody talks about ...", "the secret to"
MISTAKE_WARNING = "mistake_warning"  # "You've been doing X wrong", "Stop doing ..."
LISTICLE = "listicle"  # a numbered list: "3 X mistakes", "5 ways to ..."
EXPERIMENT = "experiment"  # a test the creator ran: "I tried X for 30 days"
PERSONAL_STORY = "personal_story"  # "Storytime", "So this happened", "The day I ..."
DIRECT_ADDRESS = "direct_address"  # calls a viewer out: "Stop scrolling if you ...", "If you're a ..."
REVIEW = "review"  # "Rating X so you don't have to", "Honest review", "Is it worth it"
COMPARISON = "comparison"  # "X vs Y", "cheap vs expensive"
STATISTIC = "statistic"  # a figure: "90% of people ...", "$10,000 in ..."
TRANSFORMATION = "transformation"  # "Before and after", "From X to Y", "glow up"
RELATABLE = "relatable"  # "Me when ...", "Tell me you're X without telling me"
STATEMENT = "statement"  # a plain opening line with none of the cues above

HOOK_TYPES: tuple[str, ...] = (
    QUESTION,
    BOLD_CLAIM,
    TUTORIAL_PROMISE,
    POV_SETUP,
    CURIOSITY_GAP,
    SECRET_REVEAL,
    MISTAKE_WARNING,
    LISTICLE,
    EXPERIMENT,
    PERSONAL_STORY,
    DIRECT_ADDRESS,
    REVIEW,
    COMPARISON,
    STATISTIC,
    TRANSFORMATION,
    RELATABLE,
    STATEMENT,
)

DESCRIPTIONS: dict[str, str] = {
    QUESTION: "Asks the viewer something",
    BOLD_CLAIM: "A superlative or life-changing claim",
    TUTORIAL_PROMISE: "Promises to show how",
    POV_SETUP: "A role-play frame (POV: ...)",
    CURIOSITY_GAP: "Withholds the payoff until later",
    SECRET_REVEAL: "Hidden knowledge nobody talks about",
    MISTAKE_WARNING: "Warns about doing something wrong",
    LISTICLE: "A numbered list",
    EXPERIMENT: "A test the creator ran (I tried X for 30 days)",
    PERSONAL_STORY: "The creator's own story",
    DIRECT_ADDRESS: "Calls a kind of viewer out",
    REVIEW: "Rates or reviews something",
    COMPARISON: "Puts two things side by side",
    STATISTIC: "Opens with a figure",
    TRANSFORMATION: "Before and after",
    RELATABLE: "A shared everyday moment (me when ...)",
    STATEMENT: "A plain opening line with none of the cues above",
}

# the 12 visual hook types (§4.7 names text_hook, person_speaking_to_camera)
TEXT_HOOK = "text_hook"  # the opening is text on screen
PERSON_SPEAKING_TO_CAMERA = "person_speaking_to_camera"
VOICEOVER = "voiceover"
REACTION = "reaction"
DUET_SPLIT_SCREEN = "duet_split_screen"
STITCH_REPLY = "stitch_reply"
GREEN_SCREEN = "green_screen"
BEFORE_AFTER = "before_after"
DEMONSTRATION = "demonstration"  # hands-on: a tutorial, recipe or build being done
PRODUCT_SHOWCASE = "product_showcase"  # unboxing, haul, product close-ups
SKIT = "skit"  # acted scene
ASMR = "asmr"

VISUAL_HOOK_TYPES: tuple[str, ...] = (
    TEXT_HOOK,
    PERSON_SPEAKING_TO_CAMERA,
    VOICEOVER,
    REACTION,
    DUET_SPLIT_SCREEN,
    STITCH_REPLY,
    GREEN_SCREEN,
    BEFORE_AFTER,
    DEMONSTRATION,
    PRODUCT_SHOWCASE,
    SKIT,
    ASMR,
)

# the category vocabulary of the corpus, each with the keywords (hashtags or caption words) that signal it
CATEGORY_KEYWORDS: dict[str, tuple[str, ...]] = {
    "fitness": ("fitness", "workout", "gym", "nogym", "homeworkout", "running", "runtok", "marathon",
                "cardio", "dumbbells", "reps", "glutes", "protein", "highprotein", "gains", "macros",
                "yoga", "pilates"),
    "food": ("food", "foodtok", "foodie", "recipe", "recipes", "easyrecipes", "cooking", "baking",
             "sourdough", "bread", "dinner", "streetfood", "tacos", "ramen", "pasta", "tasting"),
    "beauty": ("beauty", "skincare", "skincareroutine", "makeup", "makeuptutorial", "glowup", "serum",
               "moisturizer", "spf", "foundation", "eyeliner", "haircare", "hair", "curlyhair", "nails"),
    "fashion": ("fashion", "ootd", "outfit", "outfitideas", "style", "styling", "thrift", "thrifthaul",
                "secondhand", "vintage", "sneakers", "sneakerhead", "kicks", "jeans"),
    "tech": ("tech", "techtips", "iphone", "android", "ai", "chatgpt", "aitools", "productivity",
             "desksetup", "setup", "keyboard", "monitor", "gadgets", "coding"),
    "gaming": ("gaming", "gamer", "cozygames", "nintendo", "speedrun", "fortnite", "minecraft",
               "ranked", "controller", "playstation", "xbox"),
    "finance": ("finance", "personalfinance", "moneytok", "fintok", "budget", "budgeting", "investing",
                "stocks", "sidehustle", "money", "entrepreneur", "savings", "debt", "crypto"),
    "travel": ("travel", "traveltips", "backpacking", "hiddengems", "wanderlust", "cityguide", "flights",
               "hostel", "roadtrip", "vacation"),
    "comedy": ("comedy", "funny", "skit", "prank", "storytime", "relatable", "humor", "meme"),
    "education": ("education", "science", "learnontiktok", "facts", "history", "historytok",
                  "languagelearning", "physics", "space", "study", "grammar", "vocabulary"),
    "pets": ("pets", "dog", "dogs", "dogsoftiktok", "puppy", "cat", "cats", "catsoftiktok", "kitten",
             "exoticpets", "reptile", "gecko", "parrot", "aquarium"),
    "parenting": ("parenting", "momlife", "dadlife", "toddler", "familymeals", "lunchbox", "newborn",
                  "newmom", "baby"),
    "home": ("home", "homedecor", "interiordesign", "homemakeover", "diy", "diyprojects", "woodworking",
             "cleantok", "cleaning", "cleaningmotivation", "organizing", "laundry"),
    "sports": ("sports", "football", "soccer", "goals", "basketball", "nba", "hoops", "golf", "golftok",
               "golfswing", "tennis"),
    "music": ("music", "cover", "singing", "vocals", "musicproducer", "beats", "producer", "guitar",
              "guitartok", "guitarist", "piano"),
    "cars": ("cars", "cartok", "carreview", "detailing", "cardetailing", "ev", "horsepower", "supercar"),
}  # fmt: skip
CATEGORIES: tuple[str, ...] = tuple(CATEGORY_KEYWORDS)
_CATEGORY_OF: dict[str, str] = {w: c for c, words in CATEGORY_KEYWORDS.items() for w in words}

MAX_HOOK_CHARS = 200
MAX_HOOK_WORDS = 25


@dataclass(frozen=True)
class Hook:
    text: str  # as the creator wrote or said it (emoji kept), one line
    source: Literal["transcript", "caption"]


# --- normalizing ----------------------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_HASHTAG = re.compile(r"#[^\s#]+")
_MENTION = re.compile(r"(?<!\w)@[\w.]+")
_URL = re.compile(r"https?://\S+|www\.\S+")


def words(text: str) -> list[str]:
    """Casefolded words: letters and digits only, so punctuation, emoji and line breaks separate words
    and never count as one. "Don't" is the two words "don" and "t", as the full-text indexes split it."""
    return [w.casefold() for w in _WORD.findall(unicodedata.normalize("NFKC", text))]


def normalize(text: str) -> str:
    """The matching form of a hook or a query: its words joined by single spaces."""
    return " ".join(words(text))


# --- extracting -----------------------------------------------------------------------------------------

# spoken openers that carry nothing (dropped from the start of a transcript's first sentence)
_FILLERS = re.compile(
    r"^(?:(?:okay|ok|so|um+|uh+|well|alright|all right|hey guys|hi guys|guys|honestly|basically|"
    r"listen|look|right|bueno|pues|mira|la verdad|então|entao|olha|sinceramente|tipo|also|ehrlich gesagt|"
    r"schau mal|na ja|alors|bon|franchement|écoute|ecoute|du coup)\b[\s,.:;!-]*)+",
    re.IGNORECASE,
)
# spoken lead-ins that open a sentence before the hook itself, when a comma sets them off ("trust me, this
# works"); without the comma they may be the hook ("let me show you how to ...")
_LEAD_INS = re.compile(
    r"^(?:(?:trust me|let me show you|not gonna lie|ngl|real talk|listen up|follow for part (?:two|2)|"
    r"créeme|creeme|mira esto|sígueme para la parte dos|confia|confia em mim|olha isso|"
    r"me segue pra parte dois|glaub mir|folg mir für teil zwei|crois-moi|regarde ça|"
    r"abonne-toi pour la partie deux)\s*,\s*)+",
    re.IGNORECASE,
)
# a sentence ends at ! or ?, or at a single "." (an ellipsis "..." keeps the suspense in one line)
_SENTENCE_END = re.compile(r"(?<=[!?])\s+|(?<=[^.]\.)\s+|\n+")


def _clip(text: str) -> str:
    text = " ".join(text.split())
    tokens = text.split(" ")
    if len(tokens) > MAX_HOOK_WORDS:
        text = " ".join(tokens[:MAX_HOOK_WORDS])
    return text[:MAX_HOOK_CHARS].strip()


def _from_transcript(transcript: str) -> str | None:
    for sentence in _SENTENCE_END.split(transcript.strip()):
        sentence = _FILLERS.sub("", sentence.strip()).strip(" ,;:-")
        sentence = _LEAD_INS.sub("", sentence)
        sentence = _FILLERS.sub("", sentence).strip(" ,;:-")
        sentence = re.sub(r"(?<=[!?])\.+$", "", sentence).rstrip(".")  # "what?." / "end." -> "what?" / "end"
        if len(words(sentence)) >= 2:
            return _clip(sentence)
    return None


def _from_caption(caption: str) -> str | None:
    for line in caption.splitlines():
        line = _URL.sub(" ", _MENTION.sub(" ", _HASHTAG.sub(" ", line)))
        if words(line):
            return _clip(line)
    return None


def extract_hook(
    transcript: str | None = None, caption: str | None = None, title: str | None = None
) -> Hook | None:
    """The video's opening line: the transcript's first sentence, else the caption's (or title's) first
    line with words; None when neither has any."""
    if transcript and (text := _from_transcript(transcript)):
        return Hook(text=text, source="transcript")
    for written in (caption, title):
        if written and (text := _from_caption(written)):
            return Hook(text=text, source="caption")
    return None


# --- classifying ----------------------------------------------------------------------------------------


def _rx(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


_NUMBER = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|dos|tres|cuatro|cinco|três|quatro|drei|vier|fünf|trois|quatre|cinq)"

# first match wins; each rule is (type, cue)
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (POV_SETUP, _rx(r"^\W*pov\b")),
    (QUESTION, _rx(r"\?\s*\W*$", r"^\W*¿")),
    (RELATABLE, _rx(r"^\W*me (?:when|after|trying)\b", r"^\W*when (?:you|your|ur)\b",
                    r"tell me (?:you'?re|you are)\b.*without telling me", r"^\W*that (?:moment|feeling) when\b",
                    r"^\W*(?:yo|eu|ich|moi) cuando\b")),
    (STATISTIC, _rx(r"\d+(?:[.,]\d+)?\s?%", r"[$€£]\s?\d[\d,.]*\s?(?:k|m|million|billion)\b", r"[$€£]\s?\d{1,3}(?:,\d{3})+",
                    r"\b\d+ (?:out of|in) (?:\d+|ten|a hundred)\b", r"\b\d[\d,.]*\s?(?:million|billion)\b")),
    (COMPARISON, _rx(r"\bvs\.?\b", r"\bversus\b", r"\bcheap\b.*\bexpensive\b", r"\bthis or that\b",
                     r"\bcontra\b", r"\bgegen\b")),
    (TRANSFORMATION, _rx(r"\bbefore (?:and|&|\+|vs) after\b", r"\bglow ?up\b", r"\btransformation\b",
                         r"\bantes (?:y|e) depois\b", r"\bantes y después\b", r"\bvorher[- ]nachher\b",
                         r"\bavant[- ]après\b", r"\bwatch (?:me|this) (?:turn|transform)\b")),
    (EXPERIMENT, _rx(r"\bi (?:tried|tested|did|ate|used|wore|drank)\b.*\b(?:for|every day|days?|weeks?|"
                     r"months?|hours?)\b", r"\b(?:probé|probe|testei|provei|getestet|ausprobiert|testé|"
                     r"essayé)\b", r"\bfor \d+ (?:days|weeks|months|hours)\b", r"\bexperiment\b",
                     r"\b\d+[- ]day challenge\b")),
    (LISTICLE, _rx(rf"^\W*(?:top )?{_NUMBER}\s+(?:\w+\s+){{0,3}}?(?:\w+s|ways|things|tips|mistakes|"
                   r"reasons|signs|hacks|habits|rules|steps|foods|places|apps|errores|erros|fehler|"
                   r"erreurs|dicas|consejos|tipps|conseils|cosas|coisas|dinge|choses)\b")),
    (SECRET_REVEAL, _rx(r"\b(?:nobody|no one|noone) (?:talks|is talking|tells|told|knows)\b",
                        r"\bnadie (?:habla|te dice|sabe)\b", r"\bningu[eé]m (?:fala|te conta|sabe)\b",
                        r"\bniemand (?:redet|spricht|sagt|weiß)\b", r"\bpersonne ne (?:parle|dit|sait)\b",
                        r"\bsecrets?\b", r"\bdon'?t want you to know\b", r"\bhidden (?:feature|trick|secret)",
                        r"\bsecreto\b", r"\bgeheimnis\b", r"\bsecret\b")),
    (MISTAKE_WARNING, _rx(r"\b(?:doing|do|did|using|use|eat|eating|cook|cooking)\b.*\bwrong\b", r"\b(?:you'?ve been|you'?re|you are)\b.*\bwrong\b",
                          r"^\W*stop (?:doing|using|buying|eating|making)\b", r"\bmistakes?\b",
                          r"^\W*(?:don'?t|never) (?:do|buy|use|make|eat)\b", r"\bwarning\b",
                          r"\bdeja de\b", r"\bpara de\b", r"\berrad[oa]s?\b", r"\bfalsch\b",
                          r"\bhör auf\b", r"\bde travers\b", r"\barrête de\b", r"\bmal\b.*\b(?:haciendo|hecho)\b",
                          r"\berror(?:es)?\b", r"\bfehler\b", r"\berreurs?\b")),
    (TUTORIAL_PROMISE, _rx(r"^\W*how (?:to|i|we|you)\b", r"\bhere'?s how\b", r"\blet me show you\b",
                           r"\bstep[- ]by[- ]step\b", r"\btutorial\b", r"\bguide\b", r"\blearn (?:how|to)\b",
                           r"^\W*c[oó]mo\b", r"^\W*como\b", r"^\W*wie (?:du|man|ich)\b",
                           r"^\W*comment\b", r"\bso geht'?s\b", r"\bin \d+ (?:steps|minutes|seconds)\b")),
    (PERSONAL_STORY, _rx(r"\bstory ?time\b", r"\bwhat i eat in a day\b", r"\bday in (?:my|the) life\b", r"^\W*so this happened\b", r"^\W*the day i\b", r"^\W*i (?:was|had|got|"
                         r"quit|left|lost|found|moved|bought|never)\b", r"^\W*my (?:first|last|worst|best)\b",
                         r"^\W*when i\b", r"\bi wish i(?:'d)? knew\b", r"^\W*(?:ayer|hoy) (?:me|fui)\b", r"^\W*als ich\b", r"^\W*quand j'?ai\b")),
    (REVIEW, _rx(r"^\W*rating\b", r"\bso you don'?t have to\b", r"\b(?:honest|brutally honest) review\b",
                 r"\bis it worth it\b", r"\bworth the hype\b", r"\btier list\b", r"^\W*reviewing\b",
                 r"^\W*review\b", r"\brese[ñn]a\b", r"\bavalia[çc][ãa]o\b", r"\bbewertung\b", r"\bavis\b")),
    (CURIOSITY_GAP, _rx(r"\bwait (?:for|till|until) the end\b", r"\bwatch (?:till|until|to) the end\b",
                        r"\byou won'?t believe\b", r"\bwhat happen(?:ed|s) next\b", r"\bhere'?s what happened\b",
                        r"\bnobody expected\b", r"\bthe ending\b", r"\bespera (?:al|o) final\b",
                        r"\bbis zum ende\b", r"\bjusqu'?à la fin\b", r"\.\.\.|…")),
    (BOLD_CLAIM, _rx(r"\bchanged my (?:life|\w+ routine|skin|game)\b", r"\byou (?:need|have) to (?:try|see|know)\b", r"\bmust[- ]try\b", r"\bthe only\b.*\b(?:you need|you'll ever need)\b", r"\bthe best\b",
                     r"\bbest\b.*\bever\b", r"\bgame ?changer\b", r"\bnever (?:going back|again)\b",
                     r"\bworst\b", r"\bthe most\b", r"\bunderrated\b", r"\boverrated\b", r"\bmejor\b",
                     r"\búnic[oa]\b", r"\bmelhor\b", r"\beinzige\b", r"\bbeste\b", r"\bseul(?:e)?\b",
                     r"\bmeilleur\b", r"\bthis is why\b", r"\bhot take\b", r"\bunpopular opinion\b")),
    (DIRECT_ADDRESS, _rx(r"^\W*stop scrolling\b", r"^\W*if you(?:'re| are| have| love| like)?\b",
                         r"\bthis is (?:for|your sign)\b", r"^\W*attention\b", r"^\W*calling all\b",
                         r"^\W*(?:hey|hi) (?:you|girls|guys|everyone)\b", r"\bsave this\b",
                         r"^\W*si (?:eres|tienes|te)\b", r"^\W*se voc[eê]\b", r"^\W*wenn du\b", r"^\W*si tu\b")),
)  # fmt: skip


def classify(hook_text: str) -> str:
    """One of ``HOOK_TYPES``: the first rule whose cue the hook holds, else ``statement``."""
    text = " ".join(unicodedata.normalize("NFKC", hook_text).split())
    for hook_type, cue in _RULES:
        if cue.search(text):
            return hook_type
    return STATEMENT


def explain(hook_text: str) -> tuple[str, str | None]:
    """The type and the words of the hook that decided it (None for ``statement``)."""
    text = " ".join(unicodedata.normalize("NFKC", hook_text).split())
    for hook_type, cue in _RULES:
        if found := cue.search(text):
            return hook_type, found.group(0)
    return STATEMENT, None


# --- visual type and category ---------------------------------------------------------------------------

_VISUAL_TAGS: tuple[tuple[str, frozenset[str]], ...] = (
    (GREEN_SCREEN, frozenset({"greenscreen", "greenscreenvideo"})),
    (ASMR, frozenset({"asmr", "asmrsounds"})),
    (BEFORE_AFTER, frozenset({"beforeandafter", "beforeafter", "transformation", "glowup", "antesydespues"})),
    (REACTION, frozenset({"reaction", "reacting", "reactionvideo", "react"})),
    (PRODUCT_SHOWCASE, frozenset({"unboxing", "haul", "thrifthaul", "productreview", "tiktokmademebuyit"})),
    (SKIT, frozenset({"skit", "skits", "comedyskit", "sketch"})),
    (TEXT_HOOK, frozenset({"textoverlay", "readthecaption", "textpost"})),
    (VOICEOVER, frozenset({"voiceover", "voiceovers", "narration"})),
    (PERSON_SPEAKING_TO_CAMERA, frozenset({"grwm", "getreadywithme", "storytime", "talkingtocamera", "rant",
                                           "podcast", "talkinghead"})),
    (DEMONSTRATION, frozenset({"tutorial", "howto", "diy", "recipe", "stepbystep", "makeuptutorial",
                               "cleanwithme", "cookwithme"})),
)  # fmt: skip
_VISUAL_PHRASES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (GREEN_SCREEN, _rx(r"\bgreen ?screen\b")),
    (BEFORE_AFTER, _rx(r"\bbefore (?:and|&|\+|vs) after\b")),
    (TEXT_HOOK, _rx(r"\b(?:read|text) (?:on screen|the caption|the text)\b", r"\bon-?screen text\b")),
    (PERSON_SPEAKING_TO_CAMERA, _rx(r"\bget ready with me\b", r"\btalking to (?:the )?camera\b")),
    (PRODUCT_SHOWCASE, _rx(r"\bunboxing\b")),
)


def visual_type(
    caption: str | None,
    hashtags: Iterable[str] = (),
    *,
    is_duet: bool | None = None,
    is_stitch: bool | None = None,
) -> str | None:
    """One of ``VISUAL_HOOK_TYPES`` when the data shows it (the platform's duet/stitch flag, a hashtag or
    a caption phrase naming the format), else None."""
    if is_duet:
        return DUET_SPLIT_SCREEN
    if is_stitch:
        return STITCH_REPLY
    tags = {normalize(t).replace(" ", "") for t in hashtags}
    tags |= {normalize(t).replace(" ", "") for t in _HASHTAG.findall(caption or "")}
    if tags & {"duet"}:
        return DUET_SPLIT_SCREEN
    if tags & {"stitch"}:
        return STITCH_REPLY
    for visual, names in _VISUAL_TAGS:
        if tags & names:
            return visual
    text = _HASHTAG.sub(" ", caption or "")
    for visual, cue in _VISUAL_PHRASES:
        if cue.search(text):
            return visual
    return None


def categorize(caption: str | None, hashtags: Sequence[str] = ()) -> str | None:
    """The category whose keywords the hashtags (counted twice) and caption words hit most; ties go to
    the earlier category in ``CATEGORIES``; None when nothing hits."""
    scores: dict[str, int] = {}
    tags = [normalize(t).replace(" ", "") for t in hashtags]
    tags += [normalize(t).replace(" ", "") for t in _HASHTAG.findall(caption or "")]
    for tag in tags:
        if (category := _CATEGORY_OF.get(tag)) is not None:
            scores[category] = scores.get(category, 0) + 2
    for word in words(_HASHTAG.sub(" ", caption or "")):
        if (category := _CATEGORY_OF.get(word)) is not None:
            scores[category] = scores.get(category, 0) + 1
    if not scores:
        return None
    return max(CATEGORIES, key=lambda c: (scores.get(c, 0), -CATEGORIES.index(c)))
