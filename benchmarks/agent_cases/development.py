"""Development users of ``benchmarks.agents``: the storing rules may be built and tuned while looking at these (their
figures are a development set's)."""

from __future__ import annotations

from .case import ANSWER, CHATTER, ECHO, FACT, NON_ANSWER, PROFILE, QUESTION, SMALL_TALK, WEATHER, Message, Tool, User

DEVELOPMENT_USERS: tuple[User, ...] = (
    User(
        "ada",
        (
            (
                Message("Hi there!", CHATTER, "Hello! How can I help?", SMALL_TALK),
                Message(
                    "I'm vegetarian, and I'm allergic to peanuts.",
                    FACT,
                    "Noted: you are vegetarian and allergic to peanuts.",
                    ECHO,
                    fact="diet",
                ),
                Message(
                    "What's the weather in Lisbon today?",
                    QUESTION,
                    "It's sunny and 21C in Lisbon.",
                    ANSWER,
                    tool=Tool(WEATHER, "Lisbon: sunny, 21C, light wind."),
                ),
                Message("ok thanks", CHATTER, "You're welcome!", SMALL_TALK),
                Message(
                    "My flight to Lisbon leaves on 14 March from Heathrow.",
                    FACT,
                    "Got it: your flight leaves on 14 March from Heathrow.",
                    ECHO,
                    fact="flight",
                ),
            ),
            (
                Message("Good morning", CHATTER, "Good morning, Ada!", SMALL_TALK),
                Message(
                    "What food should I avoid on the flight?",
                    QUESTION,
                    "Skip anything with peanuts and pick the vegetarian meal; I'll note your aisle seat too.",
                    ANSWER,
                    fact="diet",
                    tool=Tool(PROFILE, "Ada always books an aisle seat on long flights.", fact="seat"),
                ),
                Message("Do you know my dentist's name?", QUESTION, "I don't know who your dentist is.", NON_ANSWER),
                Message(
                    "Also my dentist is Dr. Okafor on Rua Augusta.",
                    FACT,
                    "Noted, Dr. Okafor on Rua Augusta.",
                    ECHO,
                    fact="dentist",
                ),
            ),
            (
                Message("Who is my dentist?", QUESTION, "Your dentist is Dr. Okafor.", ANSWER, fact="dentist"),
                Message("When does my flight leave?", QUESTION, "On 14 March, from Heathrow.", ANSWER, fact="flight"),
                Message("Which seat do I like on planes?", QUESTION, "An aisle seat.", ANSWER, fact="seat"),
                Message(
                    "Just so you know, I'm still vegetarian and allergic to peanuts.",
                    FACT,
                    "Understood.",
                    SMALL_TALK,
                    fact="diet",
                    repeats=True,
                ),
                Message("thanks, bye!", CHATTER, "Bye!", SMALL_TALK),
            ),
        ),
    ),
    User(
        "bo",
        (
            (
                Message("hello", CHATTER, "Hi Bo, what can I do for you?", SMALL_TALK),
                Message(
                    "I live in Leeds with my greyhound, Pixel.",
                    FACT,
                    "Noted: you live in Leeds with Pixel, your greyhound.",
                    ECHO,
                    fact="home",
                ),
                Message(
                    "Is it going to rain in Leeds?",
                    QUESTION,
                    "Light rain this afternoon, 12C.",
                    ANSWER,
                    tool=Tool(WEATHER, "Leeds: light rain from 14:00, 12C."),
                ),
                Message("great, thank you", CHATTER, "Any time.", SMALL_TALK),
                Message(
                    "I work night shifts as a nurse, so never schedule anything before noon.",
                    FACT,
                    "Got it, nothing before noon.",
                    ECHO,
                    fact="shifts",
                ),
            ),
            (
                Message(
                    "Who looks after Pixel when I'm at work?",
                    QUESTION,
                    "I'm not sure who looks after Pixel. Could you tell me?",
                    NON_ANSWER,
                    fact="home",
                ),
                Message(
                    "My neighbour Tom walks Pixel on my shift nights.",
                    FACT,
                    "Noted: Tom walks Pixel on your shift nights.",
                    ECHO,
                    fact="walker",
                ),
                Message(
                    "Can you check my profile?",
                    QUESTION,
                    "Your employer is Leeds General Infirmary.",
                    ANSWER,
                    tool=Tool(PROFILE, "Bo's employer: Leeds General Infirmary, emergency ward.", fact="employer"),
                ),
                Message(
                    "My dentist is Dr. Reyes near the Corn Exchange.",
                    FACT,
                    "Noted, Dr. Reyes near the Corn Exchange.",
                    ECHO,
                    fact="dentist",
                ),
            ),
            (
                Message(
                    "When can I book a dentist appointment?",
                    QUESTION,
                    "After noon, with Dr. Reyes.",
                    ANSWER,
                    fact="shifts",
                ),
                Message("Who is my dentist again?", QUESTION, "Dr. Reyes.", ANSWER, fact="dentist"),
                Message("Who walks my dog?", QUESTION, "Tom, your neighbour.", ANSWER, fact="walker"),
                Message("Where do I work?", QUESTION, "At Leeds General Infirmary.", ANSWER, fact="employer"),
                Message("cool", CHATTER, "Glad to help.", SMALL_TALK),
            ),
        ),
    ),
    User(
        "chen",
        (
            (
                Message(
                    "Our team runs Postgres 16 on the billing cluster.",
                    FACT,
                    "Noted: Postgres 16 on the billing cluster.",
                    ECHO,
                    fact="database",
                ),
                Message(
                    "I'm on call every second week, starting Mondays.",
                    FACT,
                    "Understood, on call every other week from Monday.",
                    ECHO,
                    fact="oncall",
                ),
                Message("Sure.", CHATTER, "Anything else?", SMALL_TALK),
                Message(
                    "Please always give me distances in kilometres, I use metric units.",
                    FACT,
                    "Will do: metric units from now on.",
                    ECHO,
                    fact="units",
                ),
            ),
            (
                Message(
                    "How far is it from the office to the airport?", QUESTION, "About 24 km.", ANSWER, fact="units"
                ),
                Message(
                    "Is it windy in Berlin?",
                    QUESTION,
                    "Yes, gusts up to 50 km/h this evening.",
                    ANSWER,
                    tool=Tool(WEATHER, "Berlin: windy, gusts up to 50 km/h."),
                ),
                Message(
                    "My daughter's school starts at 8:15.", FACT, "Noted: school starts at 8:15.", ECHO, fact="school"
                ),
                Message(
                    "What does my profile say?",
                    QUESTION,
                    "You're on the payments platform team.",
                    ANSWER,
                    tool=Tool(PROFILE, "Chen works on the payments platform team in Berlin.", fact="team"),
                ),
                Message("thanks!", CHATTER, "You're welcome.", SMALL_TALK),
                Message(
                    "My son has violin lessons on Tuesdays at five.",
                    FACT,
                    "Got it, violin on Tuesdays at five.",
                    ECHO,
                    fact="violin",
                ),
            ),
            (
                Message("Which database version does my team use?", QUESTION, "Postgres 16.", ANSWER, fact="database"),
                Message(
                    "Am I on call next week?",
                    QUESTION,
                    "I don't know your current rota week.",
                    NON_ANSWER,
                    fact="oncall",
                ),
                Message(
                    "What time do I need to drop my daughter off?", QUESTION, "Before 8:15.", ANSWER, fact="school"
                ),
                Message(
                    "Can I have a meeting on Tuesday at five?",
                    QUESTION,
                    "That clashes with the violin lesson.",
                    ANSWER,
                    fact="violin",
                ),
                Message("Which team am I on?", QUESTION, "The payments platform team.", ANSWER, fact="team"),
                Message("I don't know", CHATTER, "No problem.", SMALL_TALK),
            ),
        ),
    ),
    User(
        "dara",
        (
            (
                Message(
                    "I moved to Porto in January.", FACT, "Noted: you moved to Porto in January.", ECHO, fact="city"
                ),
                Message(
                    "What's the weather like there?",
                    QUESTION,
                    "Cloudy, 15C in Porto.",
                    ANSWER,
                    tool=Tool(WEATHER, "Porto: cloudy, 15C."),
                ),
                Message(
                    "I'm learning Portuguese with a tutor on Thursday evenings.",
                    FACT,
                    "Got it: Portuguese with a tutor on Thursday evenings.",
                    ECHO,
                    fact="tutor",
                ),
                Message("perfect", CHATTER, "Great!", SMALL_TALK),
                Message(
                    "I'm allergic to cats, so no cat cafes please.", FACT, "Noted, no cat cafes.", ECHO, fact="allergy"
                ),
            ),
            (
                Message(
                    "Any ideas for a cafe this weekend?",
                    QUESTION,
                    "A book cafe near Ribeira, no cats there.",
                    ANSWER,
                    fact="allergy",
                ),
                Message(
                    "My rent of 950 euros is due on the first of each month.",
                    FACT,
                    "Noted: 950 euros due on the first.",
                    ECHO,
                    fact="rent",
                ),
                Message(
                    "Let me check my profile.",
                    QUESTION,
                    "You commute by bike.",
                    ANSWER,
                    tool=Tool(PROFILE, "Dara commutes by bike to the office in Boavista.", fact="commute"),
                ),
                Message("ok", CHATTER, "Anything else?", SMALL_TALK),
                Message(
                    "My landlord is Mr. Silva, his number is on the fridge.",
                    FACT,
                    "Noted: Mr. Silva, number on the fridge.",
                    ECHO,
                    fact="landlord",
                ),
            ),
            (
                Message("When is my Portuguese lesson?", QUESTION, "Thursday evenings.", ANSWER, fact="tutor"),
                Message("How much is my rent?", QUESTION, "950 euros.", ANSWER, fact="rent"),
                Message(
                    "Who do I call about the broken boiler?",
                    QUESTION,
                    "Mr. Silva, your landlord.",
                    ANSWER,
                    fact="landlord",
                ),
                Message("How do I get to work?", QUESTION, "By bike, to Boavista.", ANSWER, fact="commute"),
                Message("Which city do I live in now?", QUESTION, "Porto.", ANSWER, fact="city"),
            ),
        ),
    ),
)
