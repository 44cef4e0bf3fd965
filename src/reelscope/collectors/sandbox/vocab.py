"""The words of the sandbox world: niches and their topics, hooks, countries, trend themes, names.

Topic vocabularies feed captions, hashtags and transcripts; trend themes feed the planted bursts.
Hashtags are stored here without ``#`` in their display case; YouTube rendering adds the ``#``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    name: str
    niche: str
    tags: tuple[str, ...]
    keywords: tuple[str, ...]
    phrases: tuple[str, ...]


def _t(niche: str, name: str, tags: str, keywords: str, phrases: str) -> Topic:
    return Topic(
        name=name,
        niche=niche,
        tags=tuple(tags.split()),
        keywords=tuple(k.strip() for k in keywords.split(",")),
        phrases=tuple(p.strip() for p in phrases.split("|")),
    )


TOPICS: tuple[Topic, ...] = (
    _t(
        "fitness",
        "home workout",
        "HomeWorkout fitness NoGym workout",
        "home workout, dumbbells, reps, glutes",
        "grab two dumbbells and do twelve reps | keep your core tight the whole time | rest thirty seconds then go again",
    ),
    _t(
        "fitness",
        "running",
        "running RunTok marathon cardio",
        "running, marathon, pace, long run",
        "my easy pace is slower than you think | the long run is where the magic happens | hydrate before mile five",
    ),
    _t(
        "fitness",
        "protein meals",
        "HighProtein mealprep gains",
        "protein, meal prep, macros, chicken",
        "forty grams of protein in one bowl | prep this on sunday and eat all week | macros are on the screen",
    ),
    _t(
        "food",
        "sourdough",
        "sourdough baking bread",
        "sourdough, starter, crumb, bake",
        "feed your starter the night before | look at that open crumb | bake covered for twenty minutes",
    ),
    _t(
        "food",
        "quick dinners",
        "EasyRecipes dinner recipe foodtok",
        "easy dinner, recipe, one pan, pasta",
        "dinner in fifteen minutes with one pan | the secret is the garlic butter | my kids ask for this every week",
    ),
    _t(
        "food",
        "street food",
        "StreetFood foodie tasting",
        "street food, tacos, ramen, food review",
        "this stall has a line around the block | honestly worth every penny | rating it out of ten",
    ),
    _t(
        "beauty",
        "skincare routine",
        "skincare SkincareRoutine glowup",
        "skincare, serum, moisturizer, spf",
        "always finish with spf even indoors | this serum changed my skin | apply it on damp skin",
    ),
    _t(
        "beauty",
        "makeup tutorial",
        "makeup MakeupTutorial beauty",
        "makeup, foundation, eyeliner, blush",
        "start with a thin layer of foundation | the trick for a sharp wing | blush goes higher than you think",
    ),
    _t(
        "beauty",
        "hair care",
        "hair HairCare curlyhair",
        "hair care, curls, shampoo, hair mask",
        "i stopped washing my hair every day | curls love this leave in | the silk pillowcase matters",
    ),
    _t(
        "fashion",
        "outfit ideas",
        "OOTD fashion OutfitIdeas style",
        "outfit, styling, capsule wardrobe, jeans",
        "three ways to style one pair of jeans | a capsule wardrobe saves so much time | tuck it in like this",
    ),
    _t(
        "fashion",
        "thrift haul",
        "thrift ThriftHaul secondhand",
        "thrift, haul, vintage, secondhand",
        "everything here was under ten dollars | vintage leather for five bucks | check the tags first",
    ),
    _t(
        "fashion",
        "sneakers",
        "sneakers SneakerHead kicks",
        "sneakers, release, resell, kicks",
        "this release sold out in minutes | on feet they look even better | is the resell worth it",
    ),
    _t(
        "tech",
        "phone tips",
        "TechTips iphone android",
        "phone tips, settings, battery, hidden feature",
        "turn this setting off right now | your battery will thank you | a hidden feature nobody uses",
    ),
    _t(
        "tech",
        "ai tools",
        "AI ChatGPT AItools productivity",
        "ai tools, prompt, automation, chatbot",
        "this ai tool saves me hours every week | use this exact prompt | automation does the boring part",
    ),
    _t(
        "tech",
        "desk setup",
        "DeskSetup setup tech",
        "desk setup, monitor, keyboard, cable management",
        "cable management changed everything | the monitor arm is worth it | my keyboard sounds like rain",
    ),
    _t(
        "gaming",
        "game clips",
        "gaming gamer clips",
        "gaming, clutch, ranked, controller",
        "one versus four clutch on the last round | ranked is brutal this season | watch the minimap",
    ),
    _t(
        "gaming",
        "cozy games",
        "CozyGames gaming nintendo",
        "cozy games, farming, switch, relaxing",
        "perfect game for a rainy evening | my farm is finally finished | cozy gamers assemble",
    ),
    _t(
        "gaming",
        "speedrun",
        "speedrun gaming record",
        "speedrun, world record, glitch, split",
        "this glitch skips the whole level | new personal best by two seconds | the split was perfect",
    ),
    _t(
        "finance",
        "budgeting",
        "budget MoneyTok PersonalFinance",
        "budget, savings, debt, paycheck",
        "pay yourself first every paycheck | this budget method actually works | i paid off my debt like this",
    ),
    _t(
        "finance",
        "investing",
        "investing stocks FinTok",
        "investing, index fund, stocks, compound interest",
        "compound interest is the eighth wonder | index funds beat most pros | start small but start now",
    ),
    _t(
        "finance",
        "side hustle",
        "SideHustle money entrepreneur",
        "side hustle, passive income, freelance, online business",
        "my side hustle made more than my job | no one tells you about taxes | start with skills you have",
    ),
    _t(
        "travel",
        "budget travel",
        "travel TravelTips backpacking",
        "travel, budget travel, flights, hostel",
        "book flights on a tuesday | this hostel had a rooftop pool | pack light and move fast",
    ),
    _t(
        "travel",
        "hidden gems",
        "HiddenGems travel wanderlust",
        "hidden gem, beach, village, road trip",
        "nobody talks about this beach | a village that looks like a painting | road trip stop number four",
    ),
    _t(
        "travel",
        "city guide",
        "CityGuide travel explore",
        "city guide, things to do, museum, neighborhood",
        "three things to do for free | the best neighborhood to stay | skip the line with this trick",
    ),
    _t(
        "comedy",
        "skits",
        "comedy funny skit",
        "skit, comedy, pov, relatable",
        "pov your boss says quick meeting | when the group chat goes silent | me pretending to understand",
    ),
    _t(
        "comedy",
        "pranks",
        "prank funny comedy",
        "prank, reaction, funny, roommate",
        "i told my roommate the house was haunted | wait for his reaction | she did not see it coming",
    ),
    _t(
        "comedy",
        "storytime",
        "storytime funny relatable",
        "storytime, story, awkward, date",
        "storytime the worst date of my life | it only gets more awkward | part two if this gets views",
    ),
    _t(
        "education",
        "science facts",
        "science LearnOnTikTok facts",
        "science, facts, space, physics",
        "space is not actually silent everywhere | physics explains this in seconds | a fact you did not know",
    ),
    _t(
        "education",
        "history",
        "history HistoryTok facts",
        "history, ancient, empire, war",
        "this empire lasted a thousand years | the real story is darker | historians still argue about this",
    ),
    _t(
        "education",
        "language learning",
        "LanguageLearning spanish english",
        "language learning, vocabulary, fluent, grammar",
        "ten words every beginner needs | how i got fluent in a year | stop memorizing grammar tables",
    ),
    _t(
        "pets",
        "dogs",
        "dog dogsoftiktok puppy",
        "dog, puppy, training, walk",
        "he knows exactly what he did | training tip for pulling on the leash | puppy zoomies at midnight",
    ),
    _t(
        "pets",
        "cats",
        "cat catsoftiktok kitten",
        "cat, kitten, cat toy, meow",
        "she judges me every morning | the box is better than the toy | kitten first bath",
    ),
    _t(
        "pets",
        "exotic pets",
        "ExoticPets reptile pets",
        "reptile, gecko, parrot, aquarium",
        "my gecko has more personality than me | the parrot learned a new word | aquarium glow up",
    ),
    _t(
        "parenting",
        "toddler life",
        "MomLife parenting toddler",
        "toddler, parenting, bedtime, tantrum",
        "bedtime routine that actually works | toddler logic explained | survived another tantrum",
    ),
    _t(
        "parenting",
        "family meals",
        "FamilyMeals lunchbox parenting",
        "lunchbox, family dinner, picky eater, snacks",
        "packing lunch for a picky eater | snacks they actually eat | family dinner in thirty minutes",
    ),
    _t(
        "parenting",
        "newborn tips",
        "newborn NewMom baby",
        "newborn, baby, sleep, feeding",
        "the swaddle trick nurses use | newborn sleep is a myth | feeding schedule that saved us",
    ),
    _t(
        "home",
        "home decor",
        "HomeDecor interiordesign homemakeover",
        "home decor, living room, makeover, styling",
        "renter friendly makeover under a hundred | styling a coffee table | the lamp makes the room",
    ),
    _t(
        "home",
        "diy projects",
        "DIY DIYProjects woodworking",
        "diy, woodworking, build, tools",
        "built this from one sheet of plywood | measure twice cut once | the finish took three coats",
    ),
    _t(
        "home",
        "cleaning",
        "CleanTok cleaning cleaningmotivation",
        "cleaning, clean with me, organizing, laundry",
        "clean with me before guests arrive | this spray removes everything | organizing the junk drawer",
    ),
    _t(
        "sports",
        "football",
        "football soccer goals",
        "football, goal, transfer, match",
        "what a goal from outside the box | the transfer nobody expected | match highlights in sixty seconds",
    ),
    _t(
        "sports",
        "basketball",
        "basketball NBA hoops",
        "basketball, dunk, three pointer, playoffs",
        "the dunk of the season | three pointer at the buzzer | playoffs start now",
    ),
    _t(
        "sports",
        "golf",
        "golf GolfTok golfswing",
        "golf, swing, putting, driver",
        "fix your slice with one drill | putting is all about speed | new driver first impressions",
    ),
    _t(
        "music",
        "covers",
        "cover singing music",
        "cover, singing, vocals, acoustic",
        "acoustic cover of a song you love | hit the high note at the end | one take no edits",
    ),
    _t(
        "music",
        "producing",
        "MusicProducer beats producer",
        "beat, producer, studio, sample",
        "making a beat from one sample | studio session at three am | the drop hits different",
    ),
    _t(
        "music",
        "guitar",
        "guitar GuitarTok guitarist",
        "guitar, riff, chords, lesson",
        "four chords for a thousand songs | learn this riff in a minute | guitar lesson for beginners",
    ),
    _t(
        "cars",
        "car reviews",
        "cars CarTok carreview",
        "car review, ev, horsepower, test drive",
        "test drive of the new ev | horsepower is not everything | would you buy this car",
    ),
    _t(
        "cars",
        "detailing",
        "detailing CarDetailing satisfying",
        "detailing, car wash, ceramic coating, interior",
        "the most satisfying car wash | ceramic coating before and after | interior deep clean",
    ),
)

NICHES: tuple[str, ...] = tuple(dict.fromkeys(t.niche for t in TOPICS))
TOPICS_BY_NICHE: dict[str, tuple[int, ...]] = {
    n: tuple(i for i, t in enumerate(TOPICS) if t.niche == n) for n in NICHES
}

# how many creators work in each niche: a few big niches and a long tail, ~5x from comedy to cars (the
# order of TikTok's category sizes); within a niche its first topic is the most common (TOPIC_WEIGHTS)
NICHE_WEIGHTS: dict[str, float] = {
    "comedy": 1.0,
    "food": 0.85,
    "beauty": 0.75,
    "fashion": 0.65,
    "fitness": 0.6,
    "gaming": 0.55,
    "music": 0.5,
    "pets": 0.45,
    "education": 0.4,
    "tech": 0.36,
    "travel": 0.33,
    "sports": 0.3,
    "finance": 0.27,
    "home": 0.25,
    "parenting": 0.22,
    "cars": 0.2,
}
TOPIC_WEIGHTS: tuple[float, ...] = (0.5, 0.3, 0.2)

# generic tags by popularity; the last two are platform words (Reels, Shorts), added per platform
GENERIC_TAGS: tuple[str, ...] = ("fyp", "viral", "foryou", "trending", "explore", "reels", "shorts")
# the long tail of a topic's hashtags: a keyword run together plus one of these, most common first
TAG_SUFFIXES: tuple[str, ...] = (
    "",
    "tips",
    "tok",
    "ideas",
    "hack",
    "life",
    "inspo",
    "daily",
    "goals",
    "lover",
    "check",
    "community",
    "addict",
    "motivation",
    "101",
)


def topic_tag_pool(topic: Topic) -> tuple[str, ...]:
    """A topic's hashtags, most used first: its own tags, then keyword variants (the long tail)."""
    variants = [k.replace(" ", "") + suffix for suffix in TAG_SUFFIXES for k in topic.keywords]
    seen = {t.lower() for t in topic.tags}
    tail = [v for v in dict.fromkeys(variants) if v.lower() not in seen]
    return (*topic.tags, *tail)


TAG_POOLS: tuple[tuple[str, ...], ...] = tuple(topic_tag_pool(t) for t in TOPICS)

# hook templates per language; {kw} is a topic keyword. A caption's first line is always one of these,
# so the hook type planted in a video is its template's (benchmarks/hooks_search.py labels each)
HOOKS: dict[str, tuple[str, ...]] = {
    "en": (
        "Nobody talks about this {kw} trick",
        "Stop scrolling if you love {kw}",
        "I tried {kw} for 30 days and here's what happened",
        "POV: you finally figured out {kw}",
        "3 {kw} mistakes everyone makes",
        "Why is no one talking about {kw}?",
        "This {kw} hack changed my life",
        "You've been doing {kw} wrong",
        "The only {kw} tip you need",
        "Wait for the end... {kw}",
        "Rating {kw} so you don't have to",
        "How I learned {kw} in one week",
        "Things I wish I knew before starting {kw}",
        "Cheap vs expensive {kw}",
        "Honest review: {kw}",
        "{kw} before and after",
    ),
    "es": (
        "Nadie habla de este truco de {kw}",
        "Deja de hacer {kw} así",
        "Probé {kw} durante 30 días",
        "El mejor consejo de {kw}",
        "3 errores de {kw} que todos cometen",
        "¿Por qué nadie habla de {kw}?",
    ),
    "pt": (
        "Ninguém fala desse truque de {kw}",
        "Você está fazendo {kw} errado",
        "Testei {kw} por 30 dias",
        "A única dica de {kw} que você precisa",
        "3 erros de {kw} que todo mundo comete",
        "Por que ninguém fala de {kw}?",
    ),
    "de": (
        "Niemand redet über diesen {kw} Trick",
        "Du machst {kw} falsch",
        "Ich habe {kw} 30 Tage getestet",
        "Der einzige {kw} Tipp, den du brauchst",
        "3 {kw} Fehler, die jeder macht",
        "Warum redet niemand über {kw}?",
    ),
    "fr": (
        "Personne ne parle de cette astuce {kw}",
        "Tu fais {kw} de travers",
        "J'ai testé {kw} pendant 30 jours",
        "Le seul conseil {kw} dont tu as besoin",
        "3 erreurs de {kw} que tout le monde fait",
        "Pourquoi personne ne parle de {kw} ?",
    ),
}

# spoken fillers per language, opening transcripts and closing some of them
FILLERS: dict[str, tuple[str, ...]] = {
    "en": ("okay so", "honestly", "let me show you", "trust me", "follow for part two", "hey guys", "ngl"),
    "es": ("bueno", "la verdad", "mira esto", "créeme", "sígueme para la parte dos", "pues"),
    "pt": ("então", "sinceramente", "olha isso", "confia", "me segue pra parte dois", "tipo"),
    "de": ("also", "ehrlich gesagt", "schau mal", "glaub mir", "folg mir für teil zwei", "na ja"),
    "fr": ("alors", "franchement", "regarde ça", "crois-moi", "abonne-toi pour la partie deux", "du coup"),
}

# what a creator writes or says after the hook, per language; {kw} is the topic keyword. English videos
# also use their topic's own phrases; these keep the other languages' text in their language.
BODIES: dict[str, tuple[str, ...]] = {
    "en": (
        "Saving this for my next {kw} day",
        "Been doing {kw} for months and this is what finally worked",
        "The difference is honestly wild",
        "Full breakdown in the comments",
        "Took me way too long to figure this out",
        "Not sponsored, just obsessed with {kw}",
        "Part two is coming if you want it",
    ),
    "es": (
        "Guárdalo para tu próxima sesión de {kw}",
        "Llevo meses con {kw} y esto es lo que aprendí",
        "Lo más importante de {kw} es la constancia",
        "Así lo hago yo, paso a paso",
        "No me esperaba este resultado",
        "Te lo cuento todo en los comentarios",
    ),
    "pt": (
        "Salva pra sua próxima vez com {kw}",
        "Faz meses que eu faço {kw} assim",
        "O mais importante em {kw} é a constância",
        "É assim que eu faço, passo a passo",
        "Não esperava esse resultado",
        "Conto tudo nos comentários",
    ),
    "de": (
        "Speicher dir das für dein nächstes {kw}",
        "Ich mache {kw} seit Monaten genau so",
        "Das Wichtigste bei {kw} ist Geduld",
        "So mache ich es, Schritt für Schritt",
        "Mit dem Ergebnis hätte ich nicht gerechnet",
        "Alles weitere in den Kommentaren",
    ),
    "fr": (
        "Garde ça pour ta prochaine séance de {kw}",
        "Ça fait des mois que je fais {kw} comme ça",
        "Le plus important avec {kw}, c'est la régularité",
        "Je te montre tout, étape par étape",
        "Je ne m'attendais pas à ce résultat",
        "Je te dis tout en commentaire",
    ),
}
CALLS_TO_ACTION: dict[str, tuple[str, ...]] = {
    "en": (
        "Follow for part 2",
        "Save this for later",
        "Send this to someone who needs it",
        "Would you try this?",
        "Tell me in the comments",
        "Which one would you pick?",
    ),
    "es": (
        "Sígueme para la parte 2",
        "Guárdalo para después",
        "Compártelo con quien lo necesite",
        "¿Lo intentarías?",
        "Cuéntame en los comentarios",
    ),
    "pt": (
        "Me segue pra parte 2",
        "Salva pra depois",
        "Manda pra quem precisa ver isso",
        "Você tentaria?",
        "Me conta nos comentários",
    ),
    "de": (
        "Folg mir für Teil 2",
        "Speichern nicht vergessen",
        "Schick das jemandem, der es braucht",
        "Würdest du das ausprobieren?",
        "Schreib's in die Kommentare",
    ),
    "fr": (
        "Abonne-toi pour la partie 2",
        "Enregistre pour plus tard",
        "Envoie ça à quelqu'un qui en a besoin",
        "Tu testerais ?",
        "Dis-moi en commentaire",
    ),
}
NICHE_EMOJI: dict[str, tuple[str, ...]] = {
    "fitness": ("💪", "🏋️", "🔥"),
    "food": ("🍝", "😋", "🔥"),
    "beauty": ("✨", "💄", "🧴"),
    "fashion": ("👗", "✨", "🛍️"),
    "tech": ("📱", "💻", "⚡"),
    "gaming": ("🎮", "🕹️", "😤"),
    "finance": ("💸", "📈", "💰"),
    "travel": ("✈️", "🌍", "🏝️"),
    "comedy": ("😂", "💀", "😭"),
    "education": ("🧠", "📚", "🤯"),
    "pets": ("🐶", "🐱", "🥹"),
    "parenting": ("👶", "🥹", "😅"),
    "home": ("🏡", "🛠️", "✨"),
    "sports": ("⚽", "🏀", "🔥"),
    "music": ("🎶", "🎸", "🎧"),
    "cars": ("🚗", "🏎️", "✨"),
}

# Caption shapes: the hook alone on the first line (what a hook extractor reads), then a body line, a
# call to action, the niche's emoji and the hashtags in one of the ways creators arrange them. Slots:
# {hook} {body} {cta} {emoji} {tags}.
CAPTION_FORMS: tuple[str, ...] = (
    "{hook} {tags}",
    "{hook}\n{body} {emoji} {tags}",
    "{hook}\n{body}. {cta}\n{tags}",
    "{hook}\n{cta} {emoji}\n\n{tags}",
    "{hook}\n{body} {emoji}\n.\n.\n.\n{tags}",
    "{hook}\n{emoji} {body}\n{cta} {tags}",
)
# Transcript shapes: the (filler-led) hook is the first sentence, then what is said. Slots: {open}
# {hook} {body} {body2} {phrase} {cta} {close}; {phrase} is a topic phrase in English, else a body.
TRANSCRIPT_FORMS: tuple[str, ...] = (
    "{open}, {hook} {phrase}. {close}.",
    "{hook} {phrase}. {body}. {cta}",
    "{open}, {hook} {body}, {phrase}. {close}.",
    "{hook} {body}. {body2}. {close}.",
    "{open}, {hook} {phrase}. {body2}. {cta}",
)


@dataclass(frozen=True)
class Country:
    code: str
    name: str
    weight: float
    language: str


COUNTRIES: tuple[Country, ...] = (
    Country("us", "United States", 0.34, "en"),
    Country("gb", "United Kingdom", 0.11, "en"),
    Country("au", "Australia", 0.07, "en"),
    Country("ca", "Canada", 0.06, "en"),
    Country("in", "India", 0.06, "en"),
    Country("ph", "Philippines", 0.03, "en"),
    Country("ng", "Nigeria", 0.03, "en"),
    Country("br", "Brazil", 0.07, "pt"),
    Country("mx", "Mexico", 0.06, "es"),
    Country("es", "Spain", 0.04, "es"),
    Country("de", "Germany", 0.07, "de"),
    Country("fr", "France", 0.06, "fr"),
)
COUNTRY_INDEX: dict[str, int] = {c.code: i for i, c in enumerate(COUNTRIES)}

AGE_BRACKETS: tuple[str, ...] = ("13-17", "18-24", "25-34", "35-44", "45-54", "55+")
GENDERS: tuple[str, ...] = ("female", "male", "other")


@dataclass(frozen=True)
class Theme:
    """A trend theme: what a planted burst is about."""

    name: str
    description: str
    tags: tuple[str, ...]
    phrases: tuple[str, ...]
    sound_title: str


def _th(name: str, description: str, tags: str, phrases: str, sound: str) -> Theme:
    return Theme(name, description, tuple(tags.split()), tuple(p.strip() for p in phrases.split("|")), sound)


THEMES: tuple[Theme, ...] = (
    _th(
        "Silent Walking",
        "Walking without headphones or podcasts",
        "SilentWalking silentwalk mindfulwalk",
        "no music no podcast just walking | thirty minutes of silent walking",
        "quiet steps",
    ),
    _th(
        "Glass Skin Routine",
        "Layered hydration for glass skin",
        "GlassSkin glassskinroutine kbeauty",
        "seven layers of toner for glass skin | the glass skin routine that went viral",
        "glass heart",
    ),
    _th(
        "Girl Dinner",
        "Snack plates called dinner",
        "GirlDinner girldinnerideas snackplate",
        "this is my girl dinner | girl dinner but make it fancy",
        "girl dinner anthem",
    ),
    _th(
        "Dupe Haul",
        "Cheap dupes of luxury products",
        "DupeHaul dupes dupealert",
        "the dupe is better than the original | twelve dollar dupe for a luxury bag",
        "dupe season",
    ),
    _th(
        "Cottage Cheese Everything",
        "Cottage cheese in every recipe",
        "CottageCheese cottagecheeserecipes proteinhack",
        "cottage cheese ice cream actually works | blend the cottage cheese first",
        "creamy dream",
    ),
    _th(
        "Roman Empire",
        "How often men think about the Roman Empire",
        "RomanEmpire romanempiretrend",
        "how often do you think about the roman empire | my roman empire is this",
        "legion march",
    ),
    _th(
        "Desk Treadmill",
        "Walking pads under standing desks",
        "WalkingPad desktreadmill wfhlife",
        "ten thousand steps while answering emails | walking pad under my desk",
        "step counter",
    ),
    _th(
        "Mob Wife Aesthetic",
        "Fur coats and bold gold",
        "MobWife mobwifeaesthetic",
        "the mob wife era is here | fur coat and gold hoops",
        "velvet boss",
    ),
    _th(
        "75 Hard Challenge",
        "Seventy-five days of strict routine",
        "75Hard 75hardchallenge",
        "day one of seventy five hard | two workouts and a gallon of water",
        "no days off",
    ),
    _th(
        "Tube Sock Trick",
        "Rolling tube socks for heatless curls",
        "HeatlessCurls sockcurls",
        "heatless curls with a tube sock | sleep on it and wake up with curls",
        "curl up",
    ),
    _th(
        "Espresso Martini Hour",
        "Home espresso martini recipes",
        "EspressoMartini cocktailhour",
        "three ingredient espresso martini | shake until it foams",
        "late night shaker",
    ),
    _th(
        "Budget Challenge",
        "No-spend month challenges",
        "NoSpendChallenge budgetchallenge",
        "day ten of my no spend month | how much i saved this week",
        "penny saved",
    ),
    _th(
        "Quiet Luxury",
        "Understated expensive style",
        "QuietLuxury oldmoney",
        "quiet luxury on a budget | old money outfit formula",
        "cashmere",
    ),
    _th(
        "Sleepy Girl Mocktail",
        "Tart cherry magnesium mocktail for sleep",
        "SleepyGirlMocktail sleeptok",
        "tart cherry juice and magnesium | the sleepy girl mocktail works",
        "lullaby fizz",
    ),
    _th(
        "Loud Budgeting",
        "Saying no to spending out loud",
        "LoudBudgeting moneytalk",
        "i am loud budgeting this month | say it with me no thanks",
        "say no",
    ),
    _th(
        "Bed Rotting",
        "Staying in bed all day as self-care",
        "BedRotting selfcaresunday",
        "bed rotting sunday is self care | snacks blanket and a series",
        "pillow talk",
    ),
    _th(
        "Tiny Kitchen Hacks",
        "Storage hacks for tiny kitchens",
        "TinyKitchen kitchenhacks smallspace",
        "storage for a tiny kitchen | this rack doubled my counter space",
        "small spaces",
    ),
    _th(
        "Couch Guy Reaction",
        "Reaction videos to a viral clip",
        "CouchGuy reaction",
        "watch his face when she walks in | the couch guy clip explained",
        "side eye",
    ),
    _th(
        "Puppy Dance Off",
        "Dogs dancing to a viral beat",
        "PuppyDance dogdance",
        "my dog learned the dance | puppy dance off round two",
        "paws up",
    ),
    _th(
        "Chess Openings Blitz",
        "Speedrunning chess openings",
        "ChessTok chessopening",
        "the opening that wins in ten moves | chess blitz with no premoves",
        "checkmate beat",
    ),
    _th(
        "Sunrise Run Club",
        "Morning run clubs meeting at sunrise",
        "RunClub sunriserun",
        "run club at six am | the social run club trend",
        "first light",
    ),
    _th(
        "Wrap Sandwich Hack",
        "Folding tortilla wrap hack",
        "WrapHack tortillahack",
        "cut the tortilla and fold it in four | the wrap hack everyone is doing",
        "fold it",
    ),
)

FIRST_NAMES: tuple[str, ...] = (
    "mia",
    "leo",
    "ava",
    "noah",
    "zoe",
    "liam",
    "ella",
    "max",
    "ivy",
    "sam",
    "lola",
    "kai",
    "nina",
    "theo",
    "ruby",
    "finn",
    "jade",
    "eli",
    "luna",
    "omar",
    "sara",
    "joao",
    "ana",
    "lukas",
    "lea",
    "hugo",
    "chloe",
    "diego",
    "maria",
    "tom",
    "grace",
    "ben",
    "emma",
    "jack",
    "isla",
    "raj",
    "priya",
    "ade",
    "tolu",
    "paolo",
)
NICHE_WORDS: dict[str, tuple[str, ...]] = {
    "fitness": ("lifts", "fit", "moves", "runs", "strong"),
    "food": ("bakes", "cooks", "eats", "kitchen", "bites"),
    "beauty": ("glow", "beauty", "skin", "glam", "looks"),
    "fashion": ("style", "fits", "closet", "thrifts", "wears"),
    "tech": ("tech", "codes", "setup", "gadgets", "bytes"),
    "gaming": ("plays", "games", "gg", "clutch", "pixel"),
    "finance": ("money", "invests", "saves", "cash", "wealth"),
    "travel": ("travels", "roams", "trips", "abroad", "wander"),
    "comedy": ("laughs", "jokes", "lol", "funny", "skits"),
    "education": ("learns", "facts", "explains", "teaches", "nerd"),
    "pets": ("pets", "paws", "dogs", "cats", "furry"),
    "parenting": ("mom", "dad", "family", "kids", "parent"),
    "home": ("home", "diy", "nest", "cleans", "builds"),
    "sports": ("sports", "hoops", "goals", "golf", "plays"),
    "music": ("music", "sings", "beats", "strums", "sound"),
    "cars": ("cars", "drives", "garage", "motors", "revs"),
}

SOUND_WORDS_A: tuple[str, ...] = (
    "Midnight",
    "Golden",
    "Electric",
    "Neon",
    "Summer",
    "Broken",
    "Velvet",
    "Paper",
    "Silver",
    "Wild",
    "Lonely",
    "Crystal",
    "Sunset",
    "Cosmic",
    "Honey",
    "Rebel",
    "Ocean",
    "Fever",
    "Lucky",
    "Violet",
)
SOUND_WORDS_B: tuple[str, ...] = (
    "Hearts",
    "Drive",
    "Dreams",
    "Lights",
    "Rain",
    "Fire",
    "Echo",
    "Waves",
    "Roads",
    "Sky",
    "Kiss",
    "Runaway",
    "Groove",
    "Tears",
    "Paradise",
    "Motion",
    "Bloom",
    "Signal",
    "Shadows",
    "Rhythm",
)
ARTIST_NAMES: tuple[str, ...] = (
    "Nova Reyes",
    "The Lanterns",
    "Kai Mercer",
    "Luma",
    "DJ Orbit",
    "Sasha Vale",
    "Northside Kids",
    "Mara Quinn",
    "Echo Park",
    "Jules Day",
    "Blue Harbor",
    "Rico Santos",
    "Aria Bloom",
    "The Static",
    "Leon Hart",
    "Zara Moon",
    "Velvet Club",
    "Marco Lux",
    "Ivy Lane",
    "Sol Rivera",
)

NEWS_DOMAINS: tuple[str, ...] = (
    "trendwire.example",
    "dailyfeed.example",
    "popculture.example",
    "socialbeat.example",
    "newsroom.example",
)
AD_PAGE_WORDS: tuple[str, ...] = (
    "Co",
    "Labs",
    "Studio",
    "Shop",
    "Collective",
    "Brand",
    "Club",
    "Supply",
    "Goods",
    "Works",
)
