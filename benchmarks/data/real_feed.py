"""A real-shaped trending feed: eight weeks of a US YouTube Shorts trending feed, autumn 2024 (issue 17).

Hand-written from public facts, not scraped: the stories are the autumn-2024 US news everyone saw
(Hurricanes Helene and Milton, the vice-presidential debate, the Starship booster catch, Liam Payne's
death, the World Series, Halloween, the election), with daily counts of newly trending videos shaped as
such stories are (a ramp, a peak of 5-17, a tail); titles and tags as news and fan channels write them.
Around them: ~125 videos a day of ordinary trending fare (gaming, cooking, music, pets, comedy...) from
a few hundred channels, and the recurring shows and channels that make most of a real trending feed
and are NOT stories: late-night clips every weekday, daily news channels, NFL highlights every Sunday
and Monday with a new "Week N" tag each week, a creator's numbered daily series, a viral hippo that
stays at a steady pace for weeks.

Counts and dates are approximations; the titles are written for this corpus. Everything is
deterministic (a fixed seed). ``records()`` returns yt-dlp info dicts, one observation each (``epoch``
about a day after posting, as a trending-feed dump has them), so the same corpus can be loaded with
``reelscope ingest --region us``: ``python benchmarks/data/real_feed.py out.jsonl`` writes it.
``STORIES`` is the ground truth.
"""

from __future__ import annotations

import json
import random
import string
import sys
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

ZONE = ZoneInfo("America/New_York")
FIRST_DAY = date(2024, 9, 15)
LAST_DAY = date(2024, 11, 10)
SEED = 2024_11_05


@dataclass(frozen=True)
class Story:
    name: str
    days: dict[date, int]  # newly trending videos of the story per local day
    titles: tuple[str, ...]
    tags: tuple[str, ...]  # the tags a video draws from (each takes 2-4)
    keys: tuple[str, ...]  # detection feature keys that name this story (matching a detected trend)
    hashtags: tuple[str, ...] = ()  # written into some descriptions

    @property
    def peak(self) -> date:
        return max(self.days, key=lambda d: (self.days[d], d))


def _d(month: int, day: int) -> date:
    return date(2024, month, day)


def _series(start: date, counts: list[int]) -> dict[date, int]:
    return {start + timedelta(days=i): n for i, n in enumerate(counts) if n}


NEWS = (
    "NBC News",
    "ABC News",
    "CBS News",
    "FOX Weather",
    "CNN",
    "WFLA News Channel 8",
    "USA TODAY",
    "The Weather Channel",
    "NewsNation",
    "Associated Press",
    "WESH 2 News",
    "Bay News 9",
)
SPORTS = (
    "MLB",
    "ESPN",
    "FOX Sports",
    "House of Highlights",
    "Dodgers",
    "Yankees",
    "Bleacher Report",
    "Jomboy Media",
    "CBS Sports",
)
FANS = (
    "Pop Base",
    "Entertainment Tonight",
    "E! News",
    "Access Hollywood",
    "Swiftie Central",
    "Billboard",
    "Variety",
    "Directioner Diaries",
    "PEOPLE",
)

STORIES: tuple[Story, ...] = (
    Story(
        "Hurricane Helene",
        _series(_d(9, 25), [2, 6, 12, 9, 6, 5, 4, 3, 2]),
        (
            "Hurricane Helene makes landfall in Florida's Big Bend",
            "Helene flooding in Asheville is devastating",
            "Storm surge from Hurricane Helene swamps Cedar Key",
            "Rescue crews reach Helene victims in western North Carolina",
            "Helene aftermath: whole towns cut off in the mountains",
            "Hurricane Helene: what happened in Asheville",
        ),
        ("Hurricane Helene", "Helene", "hurricane", "Asheville", "North Carolina", "Florida", "weather"),
        (
            "tag:hurricane helene",
            "tag:helene",
            "phrase:hurricane helene",
            "tag:asheville",
            "hashtag:hurricanehelene",
            "phrase:helene flooding",
        ),
        ("#HurricaneHelene",),
    ),
    Story(
        "Vice-presidential debate",
        _series(_d(10, 1), [2, 9, 3, 1]),
        (
            "VP debate highlights: JD Vance vs Tim Walz",
            "Walz and Vance clash over abortion at the VP debate",
            "Fact check: the vice presidential debate",
            "JD Vance's best moments from the VP debate",
            "Tim Walz: 'I've become friends with school shooters'",
            "The moment the moderators cut JD Vance's mic",
        ),
        ("VP debate", "JD Vance", "Tim Walz", "debate", "politics"),
        (
            "tag:vp debate",
            "tag:jd vance",
            "tag:tim walz",
            "phrase:vp debate",
            "phrase:jd vance",
            "phrase:tim walz",
            "phrase:vice presidential debate",
        ),
    ),
    Story(
        "Hurricane Milton",
        _series(_d(10, 6), [2, 5, 9, 14, 17, 8, 4, 2]),
        (
            "Hurricane Milton explodes to Category 5 in the Gulf",
            "Tampa Bay evacuates ahead of Hurricane Milton",
            "Milton makes landfall near Siesta Key",
            "Tornadoes spawned by Hurricane Milton tear through Florida",
            "Inside the eye of Hurricane Milton",
            "St. Pete after Milton: the Tropicana Field roof is gone",
            "Hurricane Milton storm chasers in Sarasota",
        ),
        ("Hurricane Milton", "Milton", "hurricane", "Tampa", "Florida", "weather", "news"),
        (
            "tag:hurricane milton",
            "tag:milton",
            "phrase:hurricane milton",
            "hashtag:hurricanemilton",
            "tag:tampa",
            "phrase:after milton",
        ),
        ("#HurricaneMilton",),
    ),
    Story(
        "Jets fire Robert Saleh",
        _series(_d(10, 8), [5, 2]),
        (
            "Jets fire head coach Robert Saleh after 2-3 start",
            "Robert Saleh fired: what went wrong with the Jets",
            "Aaron Rodgers reacts to the Jets firing Robert Saleh",
        ),
        ("New York Jets", "Robert Saleh", "Jets", "NFL"),
        ("tag:robert saleh", "tag:new york jets", "phrase:robert saleh", "phrase:jets fire"),
    ),
    Story(
        "Northern lights",
        _series(_d(10, 10), [3, 4, 1]),
        (
            "Northern lights seen as far south as Florida",
            "The aurora over Texas last night",
            "Northern lights timelapse from my backyard",
        ),
        ("northern lights", "aurora", "aurora borealis", "space weather"),
        ("tag:northern lights", "tag:aurora", "phrase:northern lights", "tag:aurora borealis"),
    ),
    Story(
        "Starship booster catch",
        _series(_d(10, 13), [11, 6, 2]),
        (
            "SpaceX catches the Starship booster with chopsticks",
            "Mechazilla catches Super Heavy booster on the first try",
            "Starship Flight 5: the booster catch from every angle",
            "Crowd reacts to the Starship booster catch",
            "How SpaceX caught a rocket out of the sky",
        ),
        ("SpaceX", "Starship", "Super Heavy", "booster catch", "rocket"),
        (
            "tag:starship",
            "tag:booster catch",
            "phrase:booster catch",
            "phrase:starship booster",
            "tag:super heavy",
            "phrase:starship booster catch",
        ),
    ),
    Story(
        "Liam Payne",
        _series(_d(10, 16), [8, 15, 7, 3, 2, 1]),
        (
            "One Direction's Liam Payne dies at 31",
            "Fans gather in Buenos Aires for Liam Payne",
            "Liam Payne's last performance",
            "Remembering Liam Payne",
            "One Direction members pay tribute to Liam Payne",
        ),
        ("Liam Payne", "One Direction", "1D", "music news"),
        ("tag:liam payne", "tag:one direction", "phrase:liam payne", "phrase:one direction"),
    ),
    Story(
        "Eras Tour in Miami",
        _series(_d(10, 18), [3, 6, 4, 2]),
        (
            "Eras Tour Miami night 1: the surprise songs",
            "Taylor Swift's Eras Tour in Miami from the floor",
            "Swifties outside Hard Rock Stadium for the Eras Tour",
            "Eras Tour Miami: the new Tortured Poets set",
        ),
        ("Taylor Swift", "Eras Tour", "Miami", "Swifties"),
        ("tag:eras tour", "phrase:eras tour", "phrase:tour miami", "tag:swifties", "phrase:eras tour miami"),
    ),
    Story(
        "NBA opening night",
        _series(_d(10, 22), [5, 6, 2]),
        (
            "LeBron and Bronny make history on opening night",
            "Bronny James checks in: first father-son duo in NBA history",
            "Celtics raise banner 18 on opening night",
            "Opening night: the best plays of the NBA's first games",
        ),
        ("Bronny James", "LeBron James", "opening night", "NBA", "Celtics"),
        ("tag:bronny james", "tag:opening night", "phrase:opening night", "phrase:bronny james"),
    ),
    Story(
        "World Series Game 1 walk-off",
        _series(_d(10, 26), [8, 3]),
        (
            "Freddie Freeman walk-off grand slam in Game 1",
            "The Freddie Freeman grand slam from the stands",
            "Freddie Freeman walk-off slam: every call",
            "Dodgers win Game 1 on a walk-off grand slam",
        ),
        ("Freddie Freeman", "World Series", "grand slam", "Dodgers", "MLB"),
        (
            "tag:freddie freeman",
            "phrase:freddie freeman",
            "phrase:grand slam",
            "tag:grand slam",
            "phrase:walk off",
            "tag:world series",
            "phrase:world series",
        ),
    ),
    Story(
        "Dodgers win the World Series",
        _series(_d(10, 30), [2, 13, 5, 2]),
        (
            "Dodgers win the World Series!",
            "Dodgers World Series celebration in the clubhouse",
            "Yankees fall apart in the fifth inning of Game 5",
            "Walker Buehler closes out the World Series",
            "Dodgers fans celebrate the World Series title in LA",
        ),
        ("World Series", "Dodgers", "Yankees", "World Series champions", "MLB"),
        (
            "tag:world series",
            "phrase:world series",
            "tag:world series champions",
            "phrase:dodgers win",
            "phrase:dodgers world series",
        ),
    ),
    Story(
        "Halloween",
        _series(_d(10, 25), [1, 0, 2, 2, 3, 4, 9, 3]),
        (
            "Best Halloween costumes of 2024",
            "Halloween decorations gone wrong",
            "Our family Halloween costume this year",
            "Trick or treat at the craziest Halloween house",
            "Halloween night in Greenwich Village",
        ),
        ("Halloween", "Halloween costume", "costume", "trick or treat"),
        (
            "tag:halloween",
            "phrase:halloween costume",
            "tag:halloween costume",
            "phrase:halloween decorations",
            "hashtag:halloween",
            "phrase:trick or treat",
        ),
        ("#halloween",),
    ),
    Story(
        "Squid Game 2 trailer",
        _series(_d(11, 1), [4, 7, 3, 1]),
        (
            "Squid Game Season 2 | Official Trailer | Netflix",
            "Squid Game 2 trailer breakdown",
            "Squid Game Season 2 trailer reaction",
            "Everything hidden in the Squid Game 2 trailer",
        ),
        ("Squid Game", "Squid Game 2", "Netflix", "trailer"),
        ("tag:squid game", "phrase:squid game", "tag:squid game 2", "phrase:squid game season"),
    ),
    Story(
        "Election night",
        _series(_d(11, 4), [3, 7, 17, 8, 4, 2]),
        (
            "Election night: Trump takes Pennsylvania",
            "Trump wins the 2024 presidential election",
            "Kamala Harris concedes at Howard University",
            "How Trump won every swing state",
            "Election night watch party reactions",
            "Inside the Trump election night party in West Palm Beach",
        ),
        ("Election 2024", "election night", "Donald Trump", "Kamala Harris", "election results"),
        (
            "tag:election night",
            "phrase:election night",
            "tag:election results",
            "tag:election 2024",
            "phrase:trump wins",
            "phrase:harris concedes",
        ),
    ),
)

# --- the ordinary feed -----------------------------------------------------------------------------

TOPICS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    # topic: (title templates, nouns, tags)
    "gaming": (
        (
            "I built a {n} in survival",
            "The {n} nobody talks about",
            "Beating the {n} with one hand",
            "{n} speedrun world record",
            "This {n} trick is broken",
        ),
        (
            "minecraft house",
            "redstone elevator",
            "final boss",
            "fortnite build",
            "roblox obby",
            "secret base",
            "ender dragon",
            "speed bridge",
            "zombie farm",
            "hardcore world",
        ),
        ("gaming", "minecraft", "fortnite", "roblox", "gameplay", "shorts"),
    ),
    "cooking": (
        (
            "The easiest {n} you will ever make",
            "{n} in 60 seconds",
            "My grandma's {n}",
            "Restaurant-style {n} at home",
            "I tried the viral {n}",
        ),
        (
            "garlic bread",
            "smash burger",
            "butter chicken",
            "chocolate chip cookies",
            "ramen hack",
            "pasta sauce",
            "breakfast burrito",
            "apple pie",
            "fried rice",
            "pumpkin bread",
        ),
        ("recipe", "cooking", "food", "easy recipe", "baking"),
    ),
    "comedy": (
        (
            "When your {n} tries to help",
            "POV: your {n} finds out",
            "Every {n} ever",
            "Me explaining to my {n}",
            "The {n} at every family dinner",
        ),
        ("mom", "little brother", "roommate", "boss", "teacher", "gym bro", "grandpa", "best friend"),
        ("comedy", "funny", "skit", "relatable", "pov"),
    ),
    "music": (
        (
            "{n} (Official Short)",
            "{n} live acoustic",
            "Singing {n} in public",
            "{n} but it's a cover",
            "The story behind {n}",
        ),
        (
            "Glass Hearts",
            "Midnight Drive",
            "Paper Planes",
            "Golden Hour",
            "Neon Rain",
            "Last Summer",
            "Slow Dancing",
            "Wildflower",
        ),
        ("music", "cover", "singing", "pop music", "acoustic"),
    ),
    "pets": (
        (
            "My {n} learned a new trick",
            "{n} vs cucumber",
            "Rescue {n} sees snow for the first time",
            "When the {n} hears the treat bag",
            "Day in the life of a {n}",
        ),
        ("golden retriever", "cat", "husky", "corgi", "parrot", "bunny", "kitten", "puppy"),
        ("pets", "dog", "cat", "cute", "animals"),
    ),
    "diy": (
        (
            "I restored a {n}",
            "Turning a {n} into art",
            "Fixing a {n} for $5",
            "{n} makeover",
            "Building a {n} from scratch",
        ),
        ("rusty knife", "old dresser", "garden shed", "bike", "vintage radio", "wooden table"),
        ("diy", "restoration", "woodworking", "satisfying", "how to"),
    ),
    "fitness": (
        (
            "{n} for beginners",
            "Fix your {n} form",
            "30 days of {n}",
            "The only {n} you need",
            "{n} mistakes everyone makes",
        ),
        ("push ups", "squat", "deadlift", "pull ups", "core workout", "running", "stretching"),
        ("fitness", "workout", "gym", "health", "exercise"),
    ),
    "tech": (
        (
            "{n} review after one month",
            "Don't buy the {n} yet",
            "{n} hidden features",
            "{n} vs last year",
            "Is the {n} worth it?",
        ),
        ("iPhone 16", "Pixel 9", "Galaxy S24", "Meta Quest 3S", "PS5 Pro", "AirPods 4"),
        ("tech", "review", "smartphone", "gadgets", "unboxing"),
    ),
    "sports": (
        (
            "Best {n} of the week",
            "The {n} that broke the internet",
            "{n} you have to see",
            "Unreal {n} from last night",
        ),
        ("catch", "dunk", "goal", "save", "trick shot", "touchdown run", "buzzer beater"),
        ("sports", "highlights", "soccer", "basketball", "football"),
    ),
}

RECURRING: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...], tuple[int, ...], int], ...] = (
    # channel, title template, tags, topics or episode words, weekdays (0=Mon), videos per day
    (
        "Jimmy Kimmel Live",
        "Jimmy Kimmel on {t}",
        ("Jimmy Kimmel", "Kimmel", "late night", "comedy", "monologue"),
        ("the news this week", "his trip to Target", "Halloween candy", "the debate", "cable news", "Costco"),
        (0, 1, 2, 3),
        3,
    ),
    (
        "The Tonight Show Starring Jimmy Fallon",
        "Fallon: {t}",
        ("Jimmy Fallon", "Tonight Show", "late night", "comedy"),
        ("Thank You Notes", "Wheel of Impressions", "Lip Sync Battle", "Hashtags", "Pros and Cons"),
        (0, 1, 2, 3),
        2,
    ),
    (
        "Late Night with Seth Meyers",
        "A Closer Look: {t}",
        ("Seth Meyers", "Late Night", "A Closer Look"),
        ("the campaign", "Congress", "the week in news", "the polls"),
        (0, 1, 2, 3),
        1,
    ),
    (
        "NBC News",
        "{t} | NBC News",
        ("NBC News", "news", "breaking news"),
        ("Morning headlines", "Nightly News in 60 seconds", "Today's top stories"),
        (0, 1, 2, 3, 4, 5, 6),
        3,
    ),
    (
        "ABC News",
        "{t} | ABC News",
        ("ABC News", "news", "World News Tonight"),
        ("World News Tonight headlines", "GMA first look", "Top stories"),
        (0, 1, 2, 3, 4, 5, 6),
        2,
    ),
    (
        "Beast Shorts",
        "I Gave {t} $10,000",
        ("mrbeast", "challenge", "money"),
        ("a Stranger", "My Subscriber", "a Waiter", "a Mailman", "My Neighbor"),
        (0, 1, 2, 3, 4, 5, 6),
        1,
    ),
    (
        "Dude Perfect",
        "{t} Trick Shots",
        ("Dude Perfect", "trick shots", "sports"),
        ("Halloween", "Backyard", "Bowling", "Golf", "Basketball"),
        (2, 5),
        2,
    ),
    (
        "Chef Matt Daily",
        "Day {n} of cooking until I get a Michelin star",
        ("cooking challenge", "chef", "Day {n}"),
        (),
        (0, 1, 2, 3, 4, 5, 6),
        1,
    ),
    (
        "Moo Deng Cam",
        "Moo Deng {t}",
        ("Moo Deng", "pygmy hippo", "hippo", "cute animals"),
        ("bites the zookeeper", "takes a bath", "eats watermelon", "zoomies", "naps"),
        (0, 1, 2, 3, 4, 5, 6),
        1,
    ),
)
NFL_CHANNELS = ("NFL", "ESPN", "CBS Sports", "FOX Sports: NFL", "NFL on Prime Video")
NFL_TEAMS = (
    "Chiefs",
    "Bills",
    "Ravens",
    "Eagles",
    "Lions",
    "Packers",
    "49ers",
    "Cowboys",
    "Steelers",
    "Texans",
    "Vikings",
    "Commanders",
    "Bengals",
    "Falcons",
    "Broncos",
    "Chargers",
)
NFL_WEEK1 = _d(9, 5)  # the Thursday of week 1


def _video_id(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits + "_-") for _ in range(11))


def _channel_id(name: str) -> str:
    rng = random.Random(name)
    return "UC" + "".join(rng.choice(string.ascii_letters + string.digits + "_-") for _ in range(22))


def _info(
    rng: random.Random, channel: str, posted: datetime, title: str, tags: list[str], description: str = ""
) -> dict[str, Any]:
    views = int(rng.lognormvariate(13.8, 1.0))  # median ~1M, the top in the tens of millions
    video_id = _video_id(rng)
    observed = posted + timedelta(hours=rng.uniform(18, 30))
    return {
        "id": video_id,
        "title": title,
        "description": description,
        "channel": channel,
        "channel_id": _channel_id(channel),
        "uploader_id": "@" + "".join(c for c in channel.lower() if c.isalnum()),
        "timestamp": int(posted.timestamp()),
        "upload_date": posted.strftime("%Y%m%d"),
        "duration": rng.randint(15, 59),
        "view_count": views,
        "like_count": int(views * rng.uniform(0.02, 0.06)),
        "comment_count": int(views * rng.uniform(0.0005, 0.003)),
        "tags": tags,
        "categories": ["News & Politics"] if "news" in tags else ["Entertainment"],
        "webpage_url": f"https://www.youtube.com/shorts/{video_id}",
        "extractor": "youtube",
        "extractor_key": "Youtube",
        "epoch": int(observed.timestamp()),
    }


def _moment(rng: random.Random, day: date, earliest: int = 6, latest: int = 23) -> datetime:
    local = datetime.combine(day, time(rng.randint(earliest, latest - 1), rng.randint(0, 59)), ZONE)
    return local.astimezone(UTC)


def records() -> list[dict[str, Any]]:
    """The corpus as yt-dlp info dicts, in posting order."""
    return [info for info, _ in labelled()]


def labelled() -> list[tuple[dict[str, Any], str | None]]:
    """The corpus with each video's story (None: not a story), in posting order."""
    rng = random.Random(SEED)
    out: list[tuple[dict[str, Any], str | None]] = []
    channels = {
        topic: [f"{topic.title()} {rng.choice(string.ascii_uppercase)}{i}" for i in range(40)]
        for topic in TOPICS
    }
    day = FIRST_DAY
    while day <= LAST_DAY:
        # ordinary trending fare
        for _ in range(rng.randint(110, 140)):
            topic = rng.choice(list(TOPICS))
            templates, nouns, tags = TOPICS[topic]
            title = rng.choice(templates).format(n=rng.choice(nouns))
            out.append(
                (
                    _info(
                        rng,
                        rng.choice(channels[topic]),
                        _moment(rng, day),
                        title,
                        rng.sample(tags, k=rng.randint(2, 4)),
                    ),
                    None,
                )
            )
        # recurring shows and channels
        for channel, template, tags, words, weekdays, per_day in RECURRING:
            if day.weekday() not in weekdays:
                continue
            number = (day - FIRST_DAY).days + 112
            for _ in range(per_day):
                title = template.format(t=rng.choice(words) if words else "", n=number)
                info = _info(
                    rng,
                    channel,
                    _moment(rng, day),
                    title,
                    [t.format(n=number) for t in tags],
                    f"#{number} #shorts",
                )
                out.append((info, None))
        # NFL: every Sunday and Monday, highlights from several channels, tagged with the week
        if day.weekday() in (0, 6) and day > NFL_WEEK1:
            week = (day - NFL_WEEK1).days // 7 + 1
            for channel in NFL_CHANNELS:
                for _ in range(2 if day.weekday() == 6 else 1):
                    a, b = rng.sample(NFL_TEAMS, 2)
                    info = _info(
                        rng,
                        channel,
                        _moment(rng, day, 13, 24),
                        f"{a} vs. {b} highlights | Week {week}",
                        ["NFL", "football", "highlights", f"Week {week}", a, b],
                    )
                    out.append((info, None))
        # the stories
        for story in STORIES:
            for _ in range(story.days.get(day, 0)):
                channel = rng.choice(
                    NEWS
                    if "news" in story.tags or "weather" in story.tags
                    else SPORTS
                    if "MLB" in story.tags or "NBA" in story.tags or "NFL" in story.tags
                    else FANS + NEWS
                )
                description = rng.choice(story.hashtags) if story.hashtags and rng.random() < 0.4 else ""
                tags = rng.sample(story.tags, k=min(len(story.tags), rng.randint(2, 4)))
                info = _info(rng, channel, _moment(rng, day), rng.choice(story.titles), tags, description)
                out.append((info, story.name))
        day += timedelta(days=1)
    out.sort(key=lambda item: (item[0]["timestamp"], item[0]["id"]))
    return out


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "-"
    lines = "".join(json.dumps(info) + "\n" for info in records())
    if target == "-":
        sys.stdout.write(lines)
    else:
        with open(target, "w") as out:
            out.write(lines)
