"""A hand-written, real-shaped set for intent matching (issue 16): what three agents' keyword searches
bring back, as creators write it (emoji, slang, typos, hashtags stuffed at the end, a few captions in
Spanish or Portuguese, hooks spoken in the transcript), each post labelled by hand with whether it
serves the agent's intent.

Written for this benchmark, not scraped; the labels were written before the matcher was measured on
them. A post that only shares the agent's keyword but not what the intent asks for (a night routine for
a morning-routine intent, a makeup tutorial found by "skincare") is labelled False.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Post:
    caption: str
    transcript: str | None
    hashtags: tuple[str, ...]
    serves_intent: bool


@dataclass(frozen=True)
class Scenario:
    keyword: str
    intent: str
    posts: tuple[Post, ...]


def _p(caption: str, transcript: str | None, tags: str, label: bool) -> Post:
    return Post(caption, transcript, tuple(tags.split()), label)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        keyword="skincare",
        intent="Find hooks that sell a morning skincare routine",
        posts=(
            _p(
                "my 5 min AM skincare routine before work ☀️ #skincareroutine #morningroutine",
                "okay so this is literally everything i put on my face in the morning, cleanser, vit c, spf",
                "skincareroutine morningroutine",
                True,
            ),
            _p(
                "GRWM: morning skin routine for oily skin (no makeup yet lol)",
                "good morning! starting with a gel cleanser because my skin is sooo oily",
                "grwm oilyskin skincare",
                True,
            ),
            _p(
                "stop skipping sunscreen in the morning 🙅‍♀️ dermatologist explains",
                "the one step in your morning routine you cannot skip is spf, every single day",
                "spf sunscreen skincaretips",
                True,
            ),
            _p(
                "night time skincare routine for glass skin ✨ #nightroutine",
                "before bed i double cleanse, then retinol, then a thick moisturizer",
                "nightroutine glassskin skincare",
                False,
            ),
            _p(
                "rating viral skincare products so you don't have to 💸",
                "this one was a total waste of money honestly",
                "skincare skincarereview",
                False,
            ),
            _p(
                "3 things i do EVERY morning for clear skin",
                "first, i wash my face with lukewarm water, second vitamin c serum, "
                "third moisturizer and spf",
                "clearskin acne skincare",
                True,
            ),
            _p(
                "morning routine 5am ⏰ gym, journaling, matcha",
                "i wake up at five and go straight to the gym",
                "morningroutine thatgirl productivity",
                False,
            ),
            _p(
                "rutina de skincare de mañana en 3 pasos 🌞 #skincare #rutina",
                "limpiador, sérum de vitamina c y protector solar, listo",
                "skincare rutina skincareespañol",
                True,
            ),
            _p(
                "full face of makeup using only drugstore products",
                "let's start with primer",
                "makeup drugstoremakeup beauty",
                False,
            ),
            _p(
                "why your moisturizer is pilling under makeup 😩 #skincaretips",
                "pilling happens when you layer too many silicones",
                "skincaretips makeup",
                False,
            ),
            _p(
                "the $12 cleanser that replaced my whole AM routine",
                None,
                "skincare cleanser budgetbeauty amroutine",
                True,
            ),
            _p(
                "derm reacts to a 20 step korean skincare routine 😳",
                "this is way too many steps for most people",
                "kbeauty skincareroutine dermreacts",
                True,
            ),
            _p("pov: your skin after 2 weeks of retinol 💀", None, "retinol skincare purging", False),
            _p(
                "Sephora haul!! 🛍️ skincare + makeup",
                "so i went a little crazy at sephora",
                "sephorahaul haul",
                False,
            ),
            _p(
                "minha rotina de skincare da manhã ☀️ pele mista",
                "limpeza, hidratante e protetor solar sempre",
                "skincare rotina pelemista",
                True,
            ),
            _p(
                "morning skincare for men in under 2 minutes #menskincare",
                "guys, you only need three things",
                "menskincare skincareroutine",
                True,
            ),
            _p(
                "what i eat in a day for clearer skin 🥗",
                "no dairy this week, lots of water",
                "whatieatinaday clearskin",
                False,
            ),
            _p(
                "skin cycling explained (night routine) 🌙",
                "night one exfoliate, night two retinoid, then recover",
                "skincycling skincare",
                False,
            ),
        ),
    ),
    Scenario(
        keyword="meal prep",
        intent="High protein meal prep for weight loss",
        posts=(
            _p(
                "HIGH PROTEIN meal prep for the week 💪 50g protein per bowl",
                "we're prepping chicken, rice and broccoli for five days",
                "mealprep highprotein fitfood",
                True,
            ),
            _p(
                "meal prep for fat loss: 1500 cal day of eating",
                "everything is weighed and the macros are on screen",
                "fatloss mealprep caloriedeficit",
                True,
            ),
            _p(
                "budget meal prep for college students 🍝 $20 for the whole week",
                "pasta bake, lentil soup and overnight oats",
                "budgetmeals mealprep collegelife",
                False,
            ),
            _p(
                "protein packed overnight oats x3 flavors 🥣",
                "greek yogurt plus protein powder and you're at 40 grams",
                "overnightoats protein breakfast",
                True,
            ),
            _p(
                "meal prep sunday vlog 🎶 cozy kitchen vibes",
                "just prepping some stuff for the week while i listen to music",
                "mealprepsunday vlog",
                False,
            ),
            _p(
                "how i lost 20 lbs without giving up carbs 🍞",
                "the secret was just eating enough protein",
                "weightloss weightlossjourney",
                True,
            ),
            _p(
                "easy chicken burrito bowls - meal prep in 30 min",
                "season the chicken, cook the rice, assemble",
                "mealprep chickenrecipes easyrecipes",
                True,
            ),
            _p(
                "vegan meal prep but make it pretty 🌱",
                "tofu, roasted veggies and a peanut sauce",
                "veganmealprep plantbased",
                False,
            ),
            _p(
                "my bulking meal prep 4000 calories 😮‍💨",
                "lots of rice, ground beef and whole milk",
                "bulking gymtok mealprep",
                False,
            ),
            _p(
                "preparación de comidas alta en proteína 🍗 para bajar de peso",
                "pollo, arroz integral y verduras",
                "mealprep proteina bajardepeso",
                True,
            ),
            _p(
                "cottage cheese high protein recipes that actually slap",
                "blend it and it's basically alfredo sauce",
                "cottagecheese highprotein recipe",
                True,
            ),
            _p(
                "meal prep containers that don't leak (amazon finds)",
                "link in bio for all of these",
                "amazonfinds mealprep kitchen",
                False,
            ),
            _p(
                "what a nutritionist eats in a day 🍎",
                "breakfast is eggs and toast",
                "whatieatinaday nutrition",
                False,
            ),
            _p(
                "low cal high protein snacks for your cut ✂️",
                "protein chips, jerky and greek yogurt cups",
                "cutting highprotein snacks",
                True,
            ),
            _p(
                "kids lunchbox meal prep for the week 🍎",
                "little sandwiches cut into shapes",
                "lunchbox momlife mealprep",
                False,
            ),
            _p(
                "Day 12 of my weight loss journey: weigh in 📉",
                "down another pound this week",
                "weightlossjourney weighin",
                False,
            ),
        ),
    ),
    Scenario(
        keyword="ai tools",
        intent="Creators showing AI tools that automate small business marketing",
        posts=(
            _p(
                "5 AI tools every small business owner needs in 2025 🤖",
                "number one writes your instagram captions for you",
                "aitools smallbusiness entrepreneur",
                True,
            ),
            _p(
                "I automated my whole content calendar with chatgpt",
                "here's the exact prompt i use to plan a month of posts",
                "chatgpt contentmarketing automation",
                True,
            ),
            _p(
                "this AI makes music from a text prompt 🎵 insane",
                "listen to this, it's completely ai generated",
                "ai aimusic tech",
                False,
            ),
            _p("AI art vs real artists debate 🎨", "honestly i think it's theft", "aiart artist", False),
            _p(
                "how my bakery uses AI to answer DMs and take orders 🧁",
                "the chatbot handles like eighty percent of messages",
                "smallbusiness aichatbot bakery",
                True,
            ),
            _p(
                "coding with AI: building a todo app in 10 minutes",
                "cursor wrote most of this code",
                "coding ai programming",
                False,
            ),
            _p(
                "herramientas de IA para automatizar el marketing de tu negocio",
                "con esta herramienta programas todo tu contenido",
                "marketingdigital ia emprendedores",
                True,
            ),
            _p(
                "ai email marketing tool that writes your newsletters ✉️",
                "it even picks the subject lines for you",
                "emailmarketing aitools",
                True,
            ),
            _p("will AI take your job? 😬", "economists are split on this", "ai future jobs", False),
            _p(
                "Canva's new AI features for small biz 🔥",
                "magic design made my flyer in seconds",
                "canva smallbusiness designtips",
                True,
            ),
            _p("asking AI to rate my outfit 😂", "it said my shoes were a choice", "ai funny ootd", False),
            _p(
                "automate your etsy shop with these AI tools",
                "product descriptions, listing photos and replies",
                "etsyseller aitools sidehustle",
                True,
            ),
            _p(
                "the new iPhone AI features explained",
                "apple intelligence can summarize your notifications",
                "iphone appleintelligence tech",
                False,
            ),
            _p(
                "I let AI run my ads for a week 📈",
                "cost per click went down by half",
                "facebookads marketing ai",
                True,
            ),
            _p(
                "AI study hacks for finals 📚",
                "use it to make flashcards from your notes",
                "studytok ai students",
                False,
            ),
            _p(
                "prompt engineering basics in 60 seconds",
                "be specific and give it an example",
                "promptengineering chatgpt",
                False,
            ),
        ),
    ),
)
