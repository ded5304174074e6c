"""What the generated conversations talk about: families of facts, lists, events and updates, each with the ways a
friend tells it (a few turns; ``P`` is the one the questions are about, ``F`` the friend; ``*`` marks the turn that
holds the answer) and the questions asked of it. Phrasings whose index is in ``blind`` appear only in the blind
split. Written for this set, not taken from any benchmark; questions use other words than the telling where people
would (a dog's name asked of a beagle, "work" of a barista)."""

from __future__ import annotations

from dataclasses import dataclass

Turns = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Family:
    key: str
    values: tuple[dict[str, str], ...]
    tell: tuple[Turns, ...]
    ask: tuple[str, ...]
    blind: tuple[int, ...] = ()


FACTS = (
    Family(
        "pet",
        (
            {"v": "a beagle", "name": "Biscuit"},
            {"v": "a greyhound", "name": "Pepper"},
            {"v": "a corgi", "name": "Noodle"},
        ),
        (
            (("F", "Any news on the home front?"), ("P*", "We adopted {v} from the shelter, we call him {name}!")),
            (
                ("P", "Meet the newest member of the family."),
                ("F", "Oh my, who is this?"),
                ("P*", "{name}! {v} we rescued, he is already stealing socks."),
            ),
            (
                ("F", "Is the flat still so quiet?"),
                ("P*", "Not anymore, {name} barks at every pigeon. He's {v}, so, loud."),
            ),
        ),
        ("What is the name of {P}'s dog?", "What kind of dog did {P} adopt?"),
        blind=(2,),
    ),
    Family(
        "sibling",
        ({"v": "Dana", "job": "a nurse"}, {"v": "Ilya", "job": "a pilot"}, {"v": "Rosa", "job": "a chemist"}),
        (
            (("F", "Who was that on the phone earlier?"), ("P*", "My little sister {v}. She works as {job} in Leeds.")),
            (
                ("P", "Family dinner was chaotic."),
                ("F", "Who came?"),
                ("P*", "Mostly my brother {v}, he is {job} and had stories all night."),
            ),
            (("F", "Do you see your siblings much?"), ("P*", "Only {v}, really. Being {job} keeps them busy though.")),
        ),
        ("What is the name of {P}'s sibling?", "What does {P}'s sibling do for a living?"),
        blind=(1,),
    ),
    Family(
        "allergy",
        ({"v": "peanuts"}, {"v": "shellfish"}, {"v": "cats"}),
        (
            (
                ("F", "Want to try the new Thai place?"),
                ("P*", "Sure, as long as they can keep {v} away from me, I swell up like a balloon."),
            ),
            (
                ("P*", "Ugh, sneezing all day, I'm allergic to {v} and my neighbour brought some over."),
                ("F", "Oh no, take an antihistamine!"),
            ),
            (
                ("F", "Why did you leave the party early?"),
                ("P*", "Allergy. {v}, everywhere. My throat was closing up."),
            ),
        ),
        ("What is {P} allergic to?",),
        blind=(2,),
    ),
    Family(
        "instrument",
        ({"v": "the cello"}, {"v": "the ukulele"}, {"v": "the drums"}),
        (
            (
                ("F", "What have you been up to in the evenings?"),
                ("P*", "Practising {v}. My teacher says I'm finally holding the bow right."),
            ),
            (
                ("P*", "I signed up for lessons in {v}, first one is Thursday."),
                ("F", "That's brave, your neighbours will love it."),
            ),
            (("F", "Is that a case in your hallway?"), ("P*", "Yes, I've been learning {v} since spring.")),
        ),
        ("What instrument is {P} learning?",),
        blind=(1,),
    ),
    Family(
        "car",
        ({"v": "a green Fiat Panda"}, {"v": "an old Volvo estate"}, {"v": "a red Mini"}),
        (
            (("F", "How did you get here so fast?"), ("P*", "Drove! I finally bought {v}, second hand but it runs.")),
            (("P*", "Guess who has wheels now. {v}, picked it up Saturday."), ("F", "Road trip!")),
            (("F", "Still taking the bus everywhere?"), ("P*", "Nope, got {v} from my uncle.")),
        ),
        ("What car does {P} drive?", "What vehicle did {P} get?"),
        blind=(2,),
    ),
    Family(
        "book_club",
        ({"v": "The Remains of the Day"}, {"v": "Piranesi"}, {"v": "A Gentleman in Moscow"}),
        (
            (("F", "What is the book club reading this month?"), ("P*", "{v}. I'm halfway and I can't put it down.")),
            (("P*", "Stayed up until two finishing {v}."), ("F", "Worth it?"), ("P", "Every minute.")),
            (("F", "Any novel you'd recommend?"), ("P*", "{v}, I read it twice this year.")),
        ),
        ("Which novel did {P} recommend or read for book club?",),
        blind=(1,),
    ),
    Family(
        "fear",
        ({"v": "heights"}, {"v": "deep water"}, {"v": "spiders"}),
        (
            (("F", "Coming to the climbing gym Friday?"), ("P*", "Honestly {v} terrify me, I'll watch from the café.")),
            (("P*", "I had that nightmare again, the one about {v}."), ("F", "That phobia of yours is no joke.")),
            (("F", "Why did you skip the boat tour?"), ("P*", "Me and {v} don't get along. Pure panic.")),
        ),
        ("What is {P} afraid of?", "What phobia does {P} have?"),
        blind=(2,),
    ),
    Family(
        "birthday",
        ({"v": "the 14th of March"}, {"v": "the 2nd of August"}, {"v": "the 30th of November"}),
        (
            (("F", "When should we throw you a party?"), ("P*", "My birthday is {v}, but I hate fuss.")),
            (("P*", "I'll be thirty on {v}, help."), ("F", "We're celebrating, no arguments.")),
            (("F", "Is your big day coming up?"), ("P*", "Yep, {v}. Cake is mandatory.")),
        ),
        ("When is {P}'s birthday?",),
        blind=(1,),
    ),
    Family(
        "degree",
        ({"v": "marine biology"}, {"v": "architecture"}, {"v": "medieval history"}),
        (
            (("F", "What did you study again?"), ("P*", "{v}, believe it or not. Spent three years on it.")),
            (("P*", "My old {v} professor emailed me out of the blue."), ("F", "From university? What did she want?")),
            (("F", "Do you ever use your degree?"), ("P*", "Not really, a degree in {v} doesn't pay rent.")),
        ),
        ("What did {P} study at university?",),
        blind=(2,),
    ),
    Family(
        "food",
        ({"v": "spicy ramen"}, {"v": "mushroom risotto"}, {"v": "fish tacos"}),
        (
            (("F", "If you could eat one dish forever?"), ("P*", "{v}, no contest. I'd have it every night.")),
            (("P*", "Made {v} again, my all-time favourite."), ("F", "Save me a bowl next time.")),
            (("F", "Where should we order from?"), ("P*", "Anywhere with {v}. It's my comfort food.")),
        ),
        ("What is {P}'s favourite dish?", "What food does {P} love most?"),
        blind=(1,),
    ),
)

LISTS = (
    Family(
        "hobbies",
        ({"v": "pottery"}, {"v": "rock climbing"}, {"v": "salsa dancing"}, {"v": "knitting"}, {"v": "archery"}),
        (
            (("F", "Tried anything new lately?"), ("P*", "I took up {v}! Two sessions in and I'm hooked.")),
            (("P*", "Spent Sunday at a {v} workshop, my hands still hurt."), ("F", "Sounds like fun though.")),
            (("F", "What's the new hobby this month?"), ("P*", "{v}. Don't laugh.")),
        ),
        ("What hobbies has {P} tried?", "Which new activities has {P} taken up?"),
        blind=(2,),
    ),
    Family(
        "countries",
        ({"v": "Portugal"}, {"v": "Japan"}, {"v": "Morocco"}, {"v": "Iceland"}, {"v": "Chile"}),
        (
            (("F", "Where are the photos from?"), ("P*", "{v}! Flew back on Monday, still jet-lagged.")),
            (("P*", "Booked a trip to {v} for the spring."), ("F", "Jealous, send postcards.")),
            (("F", "How was the holiday?"), ("P*", "{v} was unreal, I want to live there.")),
        ),
        ("Which countries has {P} travelled to?", "What countries did {P} visit or plan to visit?"),
        blind=(1,),
    ),
    Family(
        "dishes",
        ({"v": "sourdough bread"}, {"v": "dumplings"}, {"v": "a lemon tart"}, {"v": "paella"}, {"v": "lasagne"}),
        (
            (("F", "What smells so good?"), ("P*", "I baked {v} from scratch, first attempt.")),
            (("P*", "Cooking experiment of the week: {v}."), ("F", "Did it work?"), ("P", "Mostly!")),
            (("F", "You've been busy in the kitchen."), ("P*", "Yes, tried making {v} for the neighbours.")),
        ),
        ("What has {P} cooked or baked?", "Which dishes did {P} make at home?"),
        blind=(2,),
    ),
)

EVENTS = (
    Family(
        "marathon",
        ({"did": "ran a half marathon", "do": "run a half marathon", "what": "the half marathon"},),
        (
            (("F", "Why are you limping?"), ("P*", "I ran a half marathon yesterday, two hours and ten minutes!")),
            (("P*", "Finished my first half marathon this weekend."), ("F", "Congratulations, that's huge!")),
        ),
        (),
        blind=(1,),
    ),
    Family(
        "moving",
        ({"did": "moved to a flat by the river", "do": "move to the flat by the river", "what": "the move"},),
        (
            (("F", "Are you settled in yet?"), ("P*", "Almost, we moved into the flat by the river last Friday.")),
            (
                ("P*", "Boxes everywhere, the move to the river flat happened on Saturday."),
                ("F", "Need a hand unpacking?"),
            ),
        ),
        (),
        blind=(1,),
    ),
    Family(
        "wedding",
        ({"did": "went to a cousin's wedding", "do": "go to the cousin's wedding", "what": "the wedding"},),
        (
            (("F", "You look tired."), ("P*", "My cousin's wedding was on Saturday, we danced until three.")),
            (("P*", "Went to my cousin Lea's wedding last weekend, so many tears."), ("F", "Aw, happy ones I hope!")),
        ),
        (),
        blind=(1,),
    ),
    Family(
        "promotion",
        ({"did": "got promoted to team lead", "do": "get promoted", "what": "the promotion"},),
        (
            (("F", "Why the champagne?"), ("P*", "They made me team lead today!")),
            (("P*", "Big news: I got the promotion, I'm leading the team now."), ("F", "You deserve it.")),
        ),
        (),
        blind=(1,),
    ),
    Family(
        "surgery",
        ({"did": "had knee surgery", "do": "have knee surgery", "what": "the knee operation"},),
        (
            (("F", "How is the knee?"), ("P*", "Operated on Tuesday, the surgeon says it went well.")),
            (("P*", "Had my knee operation this week, crutches for a month."), ("F", "Rest up, I'll bring soup.")),
        ),
        (),
        blind=(1,),
    ),
    Family(
        "concert",
        ({"did": "saw a jazz concert", "do": "see the jazz concert", "what": "the jazz concert"},),
        (
            (
                ("F", "What did you do on Friday?"),
                ("P*", "Went to a jazz concert at the old theatre, the saxophonist was amazing."),
            ),
            (("P*", "That jazz gig last night was the best show I've seen in years."), ("F", "Which band?")),
        ),
        (),
        blind=(1,),
    ),
    Family(
        "camping",
        ({"did": "went camping in the mountains", "do": "go camping in the mountains", "what": "the camping trip"},),
        (
            (("F", "Did you get away this weekend?"), ("P*", "Camping up in the mountains, freezing but beautiful.")),
            (("P*", "Back from three nights camping in the hills, I smell like smoke."), ("F", "Any bears?")),
        ),
        (),
        blind=(1,),
    ),
    Family(
        "volunteering",
        ({"did": "volunteered at a food bank", "do": "volunteer at the food bank", "what": "the food bank shift"},),
        (
            (("F", "Busy Saturday?"), ("P*", "I volunteered at the food bank, packed two hundred boxes.")),
            (("P*", "Did my first shift at the food bank today, really rewarding."), ("F", "That's lovely.")),
        ),
        (),
        blind=(1,),
    ),
)

UPDATES = (
    Family(
        "job",
        (
            {"old": "the bakery on Elm Street", "new": "the city library"},
            {"old": "a marketing agency", "new": "a bike repair shop"},
        ),
        (
            (("F", "How's work?"), ("P*", "Busy, {old} is short-staffed so I do double shifts.")),
            (("F", "Still at {old}?"), ("P*", "No, I quit! I work at {new} now, so much calmer.")),
        ),
        ("Where does {P} work now?", "What is {P}'s current job?"),
    ),
    Family(
        "city",
        ({"old": "Lyon", "new": "Rotterdam"}, {"old": "Austin", "new": "Denver"}),
        (
            (("F", "Do you like it where you live?"), ("P*", "Love it, {old} has the best markets.")),
            (("P*", "It's official, I'm leaving {old} and moving to {new} next month."), ("F", "Wow, big change!")),
        ),
        ("Which city does {P} live in now?", "Where is {P} living these days?"),
    ),
    Family(
        "diet",
        ({"old": "vegetarian", "new": "vegan"}, {"old": "on a keto diet", "new": "eating everything again"}),
        (
            (("F", "Still eating meat?"), ("P*", "No, I've been {old} for a year.")),
            (("P*", "Update: I'm {new} since last month."), ("F", "How is that going?")),
        ),
        ("What diet does {P} follow now?", "What does {P} eat these days?"),
    ),
)

FILLERS_F = (
    "Hey! How have you been?",
    "Long time no talk!",
    "Haha, that's so you.",
    "Oh wow.",
    "Tell me more!",
    "I've had the busiest week.",
    "Work has been hectic lately.",
    "Same old, same old over here.",
    "Ha, I know the feeling.",
    "Anyway, talk soon?",
    "Did you watch the match last night?",
    "The weather has been awful.",
    "I need a holiday.",
    "That made me laugh.",
    "My boss scheduled three meetings about meetings.",
    "I finally fixed the leaky tap, feeling very adult.",
    "Have you seen that new detective series everyone talks about?",
    "The train was late again this morning.",
    "I'm trying to drink less coffee. It's not going well.",
    "My phone screen cracked, of course.",
    "The neighbours are renovating, drilling at 8am every day.",
    "I should really call my parents more.",
    "We should plan something for the long weekend.",
    "Did you hear about the festival in the park?",
    "Honestly I just want to sleep for a week.",
    "I started a podcast about gardening, three listeners so far.",
)
FILLERS_P = (
    "Good, good, can't complain.",
    "Hi! Missed our chats.",
    "Honestly, pretty tired.",
    "Yeah, it's been a week.",
    "Totally.",
    "I know, right?",
    "Let's get coffee soon.",
    "Haha, stop it.",
    "Anyway, enough about me.",
    "Take care!",
    "Same here, honestly.",
    "I'm running late, chat later?",
    "That's fair.",
    "Sounds like a plan.",
    "Ugh, mornings are the worst.",
    "I watched two episodes and fell asleep on the sofa.",
    "Ha, my inbox is a disaster too.",
    "The rain has not stopped once this week.",
    "I keep meaning to clean the flat and then I don't.",
    "Ooh, tell me how it ends.",
    "Let's catch up properly on the weekend.",
    "My plants are dying, I think I overwater them.",
    "I need new running shoes, mine have holes.",
    "Can't believe it's already this late in the year.",
    "I spent the whole evening sorting old photos.",
    "Work is fine, just a lot of emails.",
)
