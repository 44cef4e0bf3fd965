"""Text features: hashtag normalization and caption phrases."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)
_HASHTAG = re.compile(r"#([^\W_][\w]*)", re.UNICODE)

# function words of the five caption languages; a phrase made only of these says nothing
STOPWORDS = frozenset(
    """
    a an and are as at be but by for from has have i if in into is it its me my no not of on or our so
    that the their them then there these they this to too up us was we were what when which who why will
    with you your just how do does did can get got all more most out about like now new
    el la los las un una y o de del en con por para que es no se su sus lo al mi tu
    o a os as um uma e de do da dos das em com por para que é não se seu sua
    der die das ein eine und oder von mit für ist nicht zu auf im den dem des
    le la les un une et ou de du des en avec pour que est pas se sur au aux
    """.split()
)

# calls to action of the five caption languages ("follow for part 2", "comment below", "link in bio"): a
# creator's request to the viewer, the same whatever the video is about, so they never name a theme
CALL_TO_ACTION_WORDS = frozenset(
    """
    follow follows followed following follower followers comment comments commented like likes liked
    subscribe subscribed subscribers share shares shared sharing link links bio save saves saved part
    parts tap click repost tag
    sígueme sigueme comenta comentario comentarios comparte compartir guarda guardar enlace parte
    segue comente comentário comentários compartilhe compartilha salva salve
    folg folgt folgen kommentar kommentare kommentiere teile teilen speichern abonniere abonnieren
    abonne abonnez abonnes commente commentaire commentaires partage partagez enregistre lien
    """.split()
)


def normalize_hashtag(tag: str) -> str:
    """Case-insensitive key without '#': '#GlassSkin' and 'glassskin' are one tag (§2.3)."""
    return unicodedata.normalize("NFKC", tag).strip().lstrip("#").casefold()


def hashtags_in(text: str) -> list[str]:
    return [normalize_hashtag(m) for m in _HASHTAG.findall(text)]


def all_hashtags(listed: Iterable[str], caption: str | None) -> tuple[str, ...]:
    """A video's hashtags: the stored list and the ``#tags`` written in its caption (issue 32 item 6:
    some sources keep no list, and a creator's tags live in the caption text), each once, normalized,
    the list's first."""
    found = [normalize_hashtag(tag) for tag in listed]
    if caption:
        found += hashtags_in(caption)
    return tuple(tag for tag in dict.fromkeys(found) if tag)


def words(text: str) -> list[str]:
    without_tags = _HASHTAG.sub(" ", text)
    return [w.casefold() for w in _WORD.findall(without_tags)]


def phrases(text: str, *, sizes: tuple[int, ...] = (2, 3)) -> set[str]:
    """Word n-grams that carry meaning: no stopword at either end, no numbers, a word of 3+ letters."""
    tokens = words(text)
    found: set[str] = set()
    for size in sizes:
        for start in range(len(tokens) - size + 1):
            gram = tokens[start : start + size]
            if all(t in STOPWORDS for t in gram):
                continue
            if gram[0] in STOPWORDS or gram[-1] in STOPWORDS:
                continue
            if any(t.isdigit() for t in gram) or not any(len(t) >= 3 for t in gram):
                continue
            found.add(" ".join(gram))
    return found
