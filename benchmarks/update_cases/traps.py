"""The trap set's development part: pairs the update rules must not hide, beside updates they must still catch.

Written before the rules were changed for issue 31 (supersede on evidence, not on the shape of a sentence); the
rules were revised while looking at it. Its blind part is :mod:`.traps_blind`.
"""

from __future__ import annotations

from .case import Case, E, N, Q, R, U

OBSERVED = ("direct-observation", "tool-result", "told-by-user", "told-by-user")

TRAP_CASES: tuple[Case, ...] = (
    # -- qualified: the later statement narrows its context; both hold ------------------------------------------
    Case(
        Q,
        ("The API rate limit is 100 requests per second.", "In test mode the API rate limit is 25 requests per second."),
        "What is the API rate limit?",
    ),
    Case(Q, ("The code review needs two approvals.", "For hotfixes the code review needs one approval."),
         "How many approvals does a code review need?"),
    Case(Q, ("The office opens at 8am.", "On weekends the office opens at 10am."), "When does the office open?"),
    Case(Q, ("The request timeout is 30 seconds.", "The request timeout is 120 seconds for batch jobs."),
         "What is the request timeout?"),
    Case(Q, ("Deploys happen on Tuesdays.", "During the holiday freeze deploys happen only on Mondays."),
         "When do deploys happen?"),
    Case(Q, ("Shipping takes 3 days.", "Shipping to Canada takes 7 days."), "How long does shipping take?"),
    Case(Q, ("The gym closes at 10pm.", "In summer the gym closes at 11pm."), "When does the gym close?"),
    Case(Q, ("The user drinks two coffees a day.", "When travelling the user drinks four coffees a day."),
         "How much coffee does the user drink?"),
    Case(Q, ("Our SLA response time is 4 hours.", "For enterprise customers our SLA response time is 1 hour."),
         "What is our SLA response time?"),
    Case(Q, ("The max upload size is 10 MB.", "On the mobile app the max upload size is 5 MB."),
         "What is the max upload size?"),
    Case(Q, ("The standup is at 9:30.", "This week the standup is at 10:30 because of the offsite."),
         "When is the standup?"),
    # -- another entity: someone else's number, a part of the thing, a sibling system ----------------------------
    Case(N, ("Alice's phone number ends in 4471.", "Bob's phone number ends in 9032."), "What does Alice's number end in?"),
    Case(N, ("The user's daughter is 4 years old.", "The user's daughter's best friend is 6 years old."),
         "How old is the user's daughter?"),
    Case(N, ("Tom's car is a blue Honda.", "Tom's wife's car is a red Tesla."), "What car does Tom drive?"),
    Case(N, ("The frontend repo uses React 18.", "The admin repo uses React 17."), "Which React does the frontend use?"),
    Case(N, ("My brother lives in Madrid.", "My sister lives in Lisbon."), "Where does my brother live?"),
    Case(N, ("The user's manager is Priya.", "The user's manager's manager is Dev."), "Who is the user's manager?"),
    Case(N, ("Project Atlas is due on March 3.", "Project Borealis is due on March 17."), "When is Project Atlas due?"),
    Case(N, ("The primary database runs on port 5432.", "The replica database runs on port 5433."),
         "Which port does the primary database use?"),
    Case(N, ("Emma's birthday is on May 4.", "Emma's son's birthday is on June 9."), "When is Emma's birthday?"),
    Case(N, ("Bob's flight lands at 6pm.", "Bob said Alice's flight lands at 8pm."), "When does Bob's flight land?"),
    Case(N, ("The team uses Slack and Jira.", "The team also uses Notion."), "Which tools does the team use?"),
    Case(N, ("The user speaks English and French.", "The user also speaks German."), "Which languages does the user speak?"),
    Case(N, ("The rate limit is 100 requests per second.",
             'The docs example says "set the rate limit to 10 requests per second".'), "What is the rate limit?"),
    # -- restatements: the same fact in other words, units or a range around it ---------------------------------
    Case(R, ("The build takes 12 minutes.", "A full build takes about 12 to 13 minutes."), "How long does the build take?"),
    Case(R, ("The user is learning Japanese.", "The user has been studying Japanese."), "What is the user learning?"),
    Case(R, ("The cache TTL is 300 seconds.", "The cache TTL is five minutes."), "What is the cache TTL?"),
    Case(R, ("The max upload size is 2 GB.", "The max upload size is 2048 MB."), "What is the max upload size?"),
    Case(R, ("The meeting lasts an hour.", "The meeting lasts 60 minutes."), "How long is the meeting?"),
    Case(R, ("The team has 8 engineers.", "There are eight engineers on the team."), "How many engineers are there?"),
    Case(R, ("Sara works remotely from Porto.", "Sara works from home in Porto."), "Where does Sara work?"),
    Case(R, ("The invoice is due within 30 days.", "Invoices are due 30 days after issue."), "When is an invoice due?"),
    Case(R, ("The user prefers tea over coffee.", "The user likes tea more than coffee."), "Tea or coffee?"),
    Case(R, ("The backup runs at 2am every night.", "Every night at 02:00 the backup runs."), "When does the backup run?"),
    # -- evidence: three independent observations, then one statement of another value --------------------------
    Case(
        E,
        ("Stripe returned 429 above 100 requests per second.", "The Stripe API throttled us at 100 requests per second.",
         "The Stripe rate limit is 100 requests per second.", "The Stripe API rate limit is 25 requests per second."),
        "What is the Stripe rate limit?", OBSERVED, days=3,
    ),
    Case(
        E,
        ("The nightly job finished at 3am.", "The nightly job log shows it finished at 3am.",
         "The nightly job finishes at 3am.", "The nightly job finishes at 5am."),
        "When does the nightly job finish?", OBSERVED, days=3,
    ),
    Case(
        E,
        ("The payments service runs 4 workers.", "The config lists 4 workers for the payments service.",
         "The payments service uses 4 workers.", "The payments service uses 8 workers."),
        "How many workers does the payments service run?", OBSERVED, days=3,
    ),
    # -- updates: the rules must still catch these ----------------------------------------------------------------
    Case(U, ("The standup is at 9:15.", "The standup was moved to 9:45."), "When is the standup?"),
    Case(U, ("The user lives in Bristol.", "The user moved to Cardiff last month."), "Where does the user live?"),
    Case(U, ("The on-call rotation is weekly.", "The on-call rotation is now every two weeks."),
         "How often does on-call rotate?"),
    Case(U, ("The API key expires after 90 days.", "The API key now expires after 30 days."), "When does the key expire?"),
    Case(U, ("Jonas is the tech lead.", "Jonas stepped down and Mei is the tech lead now."), "Who is the tech lead?"),
    Case(U, ("The free plan includes 3 projects.", "The free plan now includes 5 projects."),
         "How many projects does the free plan include?"),
    Case(U, ("The user's favourite band is Radiohead.", "The user's favourite band is Wilco these days."),
         "What is the user's favourite band?"),
    Case(U, ("Our main branch is called master.", "Our main branch was renamed to main."), "What is the main branch called?"),
    Case(U, ("The user's phone number is 555-0100.", "The user's phone number is 555-0177."),
         "What is the user's phone number?"),
    Case(U, ("The conference room is on floor 2.", "The conference room moved to floor 4."),
         "Which floor is the conference room on?"),
)  # fmt: skip
