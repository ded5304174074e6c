"""Blind users of ``benchmarks.agents``: written and frozen before the benchmark first ran (a test checks their hash),
run once when the work ends; never a reason to change a rule."""

from __future__ import annotations

from .case import ANSWER, CHATTER, ECHO, FACT, NON_ANSWER, PROFILE, QUESTION, SMALL_TALK, WEATHER, Message, Tool, User

BLIND_USERS: tuple[User, ...] = (
    User(
        "eli",
        (
            (
                Message("hey", CHATTER, "Hey Eli!", SMALL_TALK),
                Message(
                    "I'm training for the Berlin marathon in September.",
                    FACT,
                    "Noted: the Berlin marathon in September.",
                    ECHO,
                    fact="marathon",
                ),
                Message(
                    "Will it be hot for my run tomorrow?",
                    QUESTION,
                    "Mild, 18C at 7am.",
                    ANSWER,
                    tool=Tool(WEATHER, "Tomorrow 07:00: 18C, dry."),
                ),
                Message(
                    "I can't eat gluten, I have coeliac disease.",
                    FACT,
                    "Understood: no gluten, you have coeliac disease.",
                    ECHO,
                    fact="gluten",
                ),
                Message("awesome, thanks a lot", CHATTER, "Good luck with training!", SMALL_TALK),
            ),
            (
                Message(
                    "What should I eat the night before a long run?",
                    QUESTION,
                    "Gluten-free pasta or rice.",
                    ANSWER,
                    fact="gluten",
                ),
                Message(
                    "Check my profile for my running shoes.",
                    QUESTION,
                    "You run in Asics Novablast 4.",
                    ANSWER,
                    tool=Tool(PROFILE, "Eli runs in Asics Novablast 4, size 44.", fact="shoes"),
                ),
                Message(
                    "My physio is Anke Vogel in Kreuzberg.",
                    FACT,
                    "Noted: Anke Vogel in Kreuzberg.",
                    ECHO,
                    fact="physio",
                ),
                Message("Do you know my target finish time?", QUESTION, "I don't have your target time.", NON_ANSWER),
                Message(
                    "I'm aiming to finish under three and a half hours.",
                    FACT,
                    "Got it: under 3:30.",
                    ECHO,
                    fact="target",
                ),
            ),
            (
                Message(
                    "Which race am I training for?",
                    QUESTION,
                    "The Berlin marathon in September.",
                    ANSWER,
                    fact="marathon",
                ),
                Message(
                    "Who should I see about my sore knee?", QUESTION, "Your physio, Anke Vogel.", ANSWER, fact="physio"
                ),
                Message(
                    "What pace do I need for my goal?",
                    QUESTION,
                    "About 4:58 per kilometre for under 3:30.",
                    ANSWER,
                    fact="target",
                ),
                Message("What size are my shoes?", QUESTION, "Size 44.", ANSWER, fact="shoes"),
                Message("nice", CHATTER, "Happy running!", SMALL_TALK),
            ),
        ),
    ),
    User(
        "fatima",
        (
            (
                Message(
                    "I run a small bakery in Marseille called Le Four Bleu.",
                    FACT,
                    "Lovely: Le Four Bleu in Marseille.",
                    ECHO,
                    fact="bakery",
                ),
                Message(
                    "Our oven needs servicing every six months.",
                    FACT,
                    "Noted: oven service every six months.",
                    ECHO,
                    fact="oven",
                ),
                Message(
                    "Is the mistral blowing today?",
                    QUESTION,
                    "Yes, strong mistral this afternoon.",
                    ANSWER,
                    tool=Tool(WEATHER, "Marseille: mistral, gusts to 70 km/h."),
                ),
                Message("merci", CHATTER, "De rien!", SMALL_TALK),
                Message(
                    "My flour supplier is Moulin Giraud, they deliver on Wednesdays.",
                    FACT,
                    "Got it: Moulin Giraud, Wednesday deliveries.",
                    ECHO,
                    fact="supplier",
                ),
            ),
            (
                Message(
                    "When does my flour arrive?",
                    QUESTION,
                    "On Wednesdays, from Moulin Giraud.",
                    ANSWER,
                    fact="supplier",
                ),
                Message("Who is my accountant?", QUESTION, "I don't know who your accountant is.", NON_ANSWER),
                Message(
                    "My accountant is Luc Moreau, he wants receipts by the fifth.",
                    FACT,
                    "Noted: Luc Moreau, receipts by the fifth.",
                    ECHO,
                    fact="accountant",
                ),
                Message(
                    "Look up my shop profile.",
                    QUESTION,
                    "The bakery opens at 6:30.",
                    ANSWER,
                    tool=Tool(PROFILE, "Le Four Bleu opens at 6:30 and closes on Mondays.", fact="hours"),
                ),
                Message("great", CHATTER, "Anything else?", SMALL_TALK),
            ),
            (
                Message("When is my oven due for a service?", QUESTION, "Every six months.", ANSWER, fact="oven"),
                Message(
                    "By when do I send my receipts?",
                    QUESTION,
                    "By the fifth, to Luc Moreau.",
                    ANSWER,
                    fact="accountant",
                ),
                Message("Which day is my shop closed?", QUESTION, "Mondays.", ANSWER, fact="hours"),
                Message("What's the name of my bakery?", QUESTION, "Le Four Bleu.", ANSWER, fact="bakery"),
                Message(
                    "I am still running Le Four Bleu in Marseille, by the way.",
                    FACT,
                    "Good to hear.",
                    SMALL_TALK,
                    fact="bakery",
                    repeats=True,
                ),
            ),
        ),
    ),
    User(
        "goran",
        (
            (
                Message("good evening", CHATTER, "Good evening, Goran.", SMALL_TALK),
                Message(
                    "My car is a 2016 Skoda Octavia estate.",
                    FACT,
                    "Noted: a 2016 Skoda Octavia estate.",
                    ECHO,
                    fact="car",
                ),
                Message("The car's MOT is due in November.", FACT, "Got it, MOT in November.", ECHO, fact="mot"),
                Message(
                    "Will there be ice on the roads tonight?",
                    QUESTION,
                    "Yes, frost after midnight.",
                    ANSWER,
                    tool=Tool(WEATHER, "Tonight: -2C, frost after midnight."),
                ),
                Message(
                    "I prefer to drive on motorways rather than country roads.",
                    FACT,
                    "Understood: motorways over country roads.",
                    ECHO,
                    fact="roads",
                ),
            ),
            (
                Message(
                    "Plan a route to Glasgow for me.", QUESTION, "The M6 and M74 the whole way.", ANSWER, fact="roads"
                ),
                Message(
                    "What's in my driver profile?",
                    QUESTION,
                    "Your licence allows trailers up to 3.5 tonnes.",
                    ANSWER,
                    tool=Tool(PROFILE, "Goran's licence covers trailers up to 3.5 tonnes.", fact="licence"),
                ),
                Message("Not sure, sorry", CHATTER, "No worries.", SMALL_TALK),
                Message(
                    "My mechanic is Priya at Northside Motors.",
                    FACT,
                    "Noted: Priya at Northside Motors.",
                    ECHO,
                    fact="mechanic",
                ),
            ),
            (
                Message("What car do I drive?", QUESTION, "A 2016 Skoda Octavia estate.", ANSWER, fact="car"),
                Message("When is my MOT?", QUESTION, "In November.", ANSWER, fact="mot"),
                Message("Who should fix my brakes?", QUESTION, "Priya at Northside Motors.", ANSWER, fact="mechanic"),
                Message(
                    "Can I tow a 3 tonne caravan?",
                    QUESTION,
                    "Yes, your licence covers up to 3.5 tonnes.",
                    ANSWER,
                    fact="licence",
                ),
                Message("cheers", CHATTER, "Drive safe.", SMALL_TALK),
            ),
        ),
    ),
    User(
        "hana",
        (
            (
                Message(
                    "I teach piano to children in Osaka.",
                    FACT,
                    "Noted: you teach piano to children in Osaka.",
                    ECHO,
                    fact="job",
                ),
                Message(
                    "Is it raining in Osaka?",
                    QUESTION,
                    "Showers until the evening.",
                    ANSWER,
                    tool=Tool(WEATHER, "Osaka: showers until 18:00, 19C."),
                ),
                Message(
                    "My recital is on the 22nd at the community hall.",
                    FACT,
                    "Got it: recital on the 22nd at the community hall.",
                    ECHO,
                    fact="recital",
                ),
                Message("thank you!", CHATTER, "You're welcome!", SMALL_TALK),
            ),
            (
                Message(
                    "What do I need to prepare for the 22nd?",
                    QUESTION,
                    "Your students' recital at the community hall.",
                    ANSWER,
                    fact="recital",
                ),
                Message("How many students do I have?", QUESTION, "I don't have that information.", NON_ANSWER),
                Message(
                    "I have fourteen students this term.",
                    FACT,
                    "Noted: fourteen students this term.",
                    ECHO,
                    fact="students",
                ),
                Message(
                    "Open my studio profile.",
                    QUESTION,
                    "Your studio has a Yamaha upright.",
                    ANSWER,
                    tool=Tool(PROFILE, "Hana's studio piano is a Yamaha U1 upright, tuned in April.", fact="piano"),
                ),
                Message(
                    "My husband Kenji picks up the kids on Fridays.",
                    FACT,
                    "Noted: Kenji on Fridays.",
                    ECHO,
                    fact="pickup",
                ),
            ),
            (
                Message("Who gets the children on Friday?", QUESTION, "Kenji does.", ANSWER, fact="pickup"),
                Message("What do I teach?", QUESTION, "Piano, to children.", ANSWER, fact="job"),
                Message("How many pupils this term?", QUESTION, "Fourteen.", ANSWER, fact="students"),
                Message("When was my piano last tuned?", QUESTION, "In April.", ANSWER, fact="piano"),
                Message("ok, bye", CHATTER, "Bye, Hana!", SMALL_TALK),
            ),
        ),
    ),
)
