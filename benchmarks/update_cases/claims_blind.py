"""Issue 73's blind set, written and frozen before the claims parser was built (``tests/test_frozen_blind_set.py``
checks its hash) and run once when that work ends; never a reason to change a rule.

Updates said without cue words and updates that name the old value; facts that hold together in one frame; routine
notes about one subject (three compatible notes: none contradicts another, and the question asks about the first);
look-alike subjects (the same frame about two people or things: neither flags the other, and a question about the
first recalls it first); restatements in other words."""

from __future__ import annotations

from .case import Case, K, L, R, T, U

CLAIMS_BLIND_CASES: tuple[Case, ...] = (
    # updates said without cue words: the same attribute, another value, weeks later
    Case(U, ("Ada's team lead is Priya Raman.", "Ada's team lead is Marco Bellini."), "Who is Ada's team lead?"),
    Case(U, ("The staging database runs on db-stage-02.", "The staging database runs on db-stage-07."), "Which host runs the staging database?"),
    Case(U, ("My gym membership costs 35 euros a month.", "My gym membership costs 42 euros a month."), "How much is my gym membership?"),
    Case(U, ("The weekly sync is on Tuesdays at 10:00.", "The weekly sync is on Thursdays at 15:00."), "When is the weekly sync?"),
    Case(U, ("Our office is on the third floor of the Kaiser building.", "Our office is on the fifth floor of the Harbour Tower."), "Where is our office?"),
    Case(U, ("The user's daughter goes to Riverside Primary.", "The user's daughter goes to Hillcrest Academy."), "Which school does the user's daughter attend?"),
    Case(U, ("The invoice service is owned by the payments team.", "The invoice service is owned by the billing platform team."), "Which team owns the invoice service?"),
    Case(U, ("My car insurance is with Allianz.", "My car insurance is with AXA."), "Who insures my car?"),
    Case(U, ("The API timeout is set to 30 seconds.", "The API timeout is set to 90 seconds."), "What is the API timeout?"),
    Case(U, ("Leo's favourite band is Arctic Monkeys.", "Leo's favourite band is Fontaines D.C."), "What is Leo's favourite band?"),
    Case(U, ("The production cluster has 12 nodes.", "The production cluster has 20 nodes."), "How many nodes does the production cluster have?"),
    Case(U, ("The user's phone is a Pixel 6.", "The user's phone is an iPhone 15."), "What phone does the user have?"),
    Case(U, ("Nightly backups are kept for 14 days.", "Nightly backups are kept for 30 days."), "How long are nightly backups kept?"),
    Case(U, ("Sam works as a junior designer at Figma.", "Sam works as a product manager at Canva."), "What is Sam's job?"),
    Case(U, ("The on-call phone number is +44 20 7946 0018.", "The on-call phone number is +44 20 7946 0734."), "What is the on-call phone number?"),
    Case(U, ("My landlord is Mrs. Okonkwo.", "My landlord is Mr. Brandt."), "Who is my landlord?"),
    # updates that name the value they replace
    Case(U, ("The user lives in Porto.", "The user moved from Porto to Lisbon in May."), "Where does the user live?"),
    Case(U, ("The release freeze starts on 1 December.", "The release freeze no longer starts on 1 December; it starts on 8 December."), "When does the release freeze start?"),
    Case(U, ("The build uses Python 3.10.", "The build was upgraded from Python 3.10 to Python 3.12."), "Which Python does the build use?"),
    Case(U, ("Mia drives a red Corolla.", "Mia sold the red Corolla and bought a blue Golf."), "What car does Mia drive?"),
    # facts that hold together in one frame
    Case(K, ("We have a cat called Pepper.", "We have a dog called Biscuit."), "What pets do we have?"),
    Case(K, ("I'm allergic to penicillin.", "I'm allergic to shellfish."), "What am I allergic to?"),
    Case(K, ("Ravi speaks Hindi.", "Ravi speaks German."), "Which languages does Ravi speak?"),
    Case(K, ("The checkout service depends on Redis.", "The checkout service depends on Kafka."), "What does the checkout service depend on?"),
    Case(K, ("My brother plays the cello.", "My brother plays the trumpet."), "What instruments does my brother play?"),
    Case(K, ("The team uses Jira for tickets.", "The team uses Linear for roadmaps."), "Which tools does the team use?"),
    Case(K, ("Nora volunteers at the food bank on Saturdays.", "Nora volunteers at the animal shelter on Sundays."), "Where does Nora volunteer?"),
    Case(K, ("The app supports login with Google.", "The app supports login with GitHub."), "Which logins does the app support?"),
    Case(K, ("I visited Kyoto in 2019.", "I visited Seoul in 2022."), "Which cities have I visited?"),
    Case(K, ("The library has a branch in Camden.", "The library has a branch in Hackney."), "Where does the library have branches?"),
    Case(K, ("Tom collects vinyl records.", "Tom collects vintage fountain pens."), "What does Tom collect?"),
    Case(K, ("The fridge holds oat milk.", "The fridge holds almond milk."), "What milk is in the fridge?"),
    # routine notes about one subject: all three hold
    Case(T, ("The search API had its rate limiter rewritten.", "The search API had its error messages translated into Spanish.", "The search API got a new dashboard for latency."), "What happened to the search API's rate limiter?"),
    Case(T, ("The mobile app gained a dark mode.", "The mobile app had its onboarding screens redesigned.", "The mobile app was moved to the growth team's backlog."), "What did the mobile app gain?"),
    Case(T, ("The data warehouse got a cost report every Monday.", "The data warehouse had its old tables archived.", "The data warehouse was given read replicas in Frankfurt."), "What report does the data warehouse get?"),
    Case(T, ("Our kitchen got a new dishwasher.", "Our kitchen had its tiles regrouted.", "Our kitchen was painted light green."), "What did our kitchen get?"),
    Case(T, ("The payment worker had its retry logic simplified.", "The payment worker got structured logging.", "The payment worker was containerised for Kubernetes."), "What changed in the payment worker's retry logic?"),
    Case(T, ("Grandma's garden got two new apple trees.", "Grandma's garden had its fence repaired.", "Grandma's garden was entered into the village show."), "What trees did grandma's garden get?"),
    Case(T, ("The docs site got a search box.", "The docs site had its broken links fixed.", "The docs site was translated into Japanese."), "What did the docs site get?"),
    Case(T, ("The CI pipeline had its cache keys reworked.", "The CI pipeline got a nightly security scan.", "The CI pipeline was split into three stages."), "What happened to the CI pipeline's cache keys?"),
    Case(T, ("The bakery got a second oven.", "The bakery had its opening hours extended on Fridays.", "The bakery was featured in the local paper."), "What did the bakery get?"),
    Case(T, ("The user's bike had its brakes replaced.", "The user's bike got new tyres.", "The user's bike was fitted with a rear rack."), "What was replaced on the user's bike?"),
    # look-alike subjects: the same frame about another person or thing
    Case(L, ("The user's sister lives in Lyon.", "The user's brother lives in Berlin."), "Where does the user's sister live?"),
    Case(L, ("Ana's son is studying medicine.", "Ana's daughter is studying law."), "What is Ana's son studying?"),
    Case(L, ("The front door code is 4821.", "The garage door code is 7350."), "What is the front door code?"),
    Case(L, ("The billing service is written in Go.", "The reporting service is written in Kotlin."), "What language is the billing service written in?"),
    Case(L, ("My dentist is Dr. Haddad.", "My optician is Dr. Lindqvist."), "Who is my dentist?"),
    Case(L, ("The London office opens at 8:30.", "The Madrid office opens at 9:30."), "When does the London office open?"),
    Case(L, ("Ben's birthday is on 3 April.", "Ben's wife's birthday is on 19 October."), "When is Ben's birthday?"),
    Case(L, ("The primary database is in eu-west-1.", "The analytics database is in us-east-2."), "Where is the primary database?"),
    Case(L, ("Our cat eats salmon pâté.", "Our neighbour's cat eats dry kibble."), "What does our cat eat?"),
    Case(L, ("The spring conference is in Vienna.", "The autumn conference is in Porto."), "Where is the spring conference?"),
    Case(L, ("Lena's manager is Oskar.", "Lena's mentor is Ingrid."), "Who is Lena's manager?"),
    Case(L, ("The kitchen light uses a GU10 bulb.", "The hallway light uses an E27 bulb."), "Which bulb does the kitchen light use?"),
    # restatements in other words
    Case(R, ("The deploy window is Wednesday afternoon.", "We deploy on Wednesday afternoons."), "When is the deploy window?"),
    Case(R, ("Priya is vegetarian.", "Priya doesn't eat meat."), "What does Priya eat?"),
    Case(R, ("The VPN certificate expires in March.", "Our VPN cert runs out in March."), "When does the VPN certificate expire?"),
    Case(R, ("My son's football practice is on Thursdays.", "Football practice for my son happens every Thursday."), "When is my son's football practice?"),
    Case(R, ("The service returns 503 when the queue is full.", "When the queue fills up the service answers 503."), "What does the service return when the queue is full?"),
    Case(R, ("Elif prefers tea to coffee.", "Elif would rather drink tea than coffee."), "What does Elif prefer to drink?"),
    Case(R, ("The warehouse closes at 18:00.", "The warehouse shuts at six in the evening."), "When does the warehouse close?"),
    Case(R, ("Our accountant is Greta Holm.", "Greta Holm does our accounts."), "Who is our accountant?"),
)
