"""The trap set's third blind part: written after the second blind part had judged the rules once and before its
misses were looked at; never looked at case by case while changing a rule."""

from __future__ import annotations

from .case import Case, E, N, Q, R, U

OBSERVED = ("tool-result", "direct-observation", "told-by-user", "told-by-user")

THIRD_BLIND_TRAP_CASES: tuple[Case, ...] = (
    # qualified
    Case(Q, ("The checkout page times out after 60 seconds.", "On slow connections the checkout page times out after 120 seconds."),
         "When does the checkout page time out?"),
    Case(Q, ("Parking costs 3 pounds an hour.", "After 6pm parking costs 1 pound an hour."), "How much is parking?"),
    Case(Q, ("The user wakes up at 6:30.", "At weekends the user wakes up at 9:00."), "When does the user wake up?"),
    Case(Q, ("The support team answers within 24 hours.", "For premium accounts the support team answers within 2 hours."),
         "How fast does support answer?"),
    Case(Q, ("The batch size is 500 rows.", "In dry-run mode the batch size is 50 rows."), "What is the batch size?"),
    Case(Q, ("The museum charges 15 euros.", "On the first Sunday of the month the museum charges nothing."),
         "What does the museum charge?"),
    Case(Q, ("The team ships twice a week.", "During the code freeze the team ships once a month."), "How often does the team ship?"),
    # another entity
    Case(N, ("Leo's flight number is BA 117.", "Leo's sister's flight number is BA 231."), "What is Leo's flight number?"),
    Case(N, ("The iOS app is on version 4.2.", "The Android app is on version 3.9."), "Which version is the iOS app on?"),
    Case(N, ("The user's school is in Bath.", "The user's son's school is in Bristol."), "Where is the user's school?"),
    Case(N, ("Warehouse A holds 1,200 pallets.", "Warehouse B holds 800 pallets."), "How many pallets in warehouse A?"),
    Case(N, ("The user plays tennis on Tuesdays.", "The user also plays chess on Tuesdays."), "What does the user do on Tuesdays?"),
    Case(N, ("Priya's birthday is on 3 March.", "Priya mentioned that Omar's birthday is on 19 March."),
         "When is Priya's birthday?"),
    # restatements
    Case(R, ("The video is 90 minutes long.", "The video runs for an hour and a half."), "How long is the video?"),
    Case(R, ("The job retries 3 times.", "The job makes three retries."), "How many times does the job retry?"),
    Case(R, ("The user works from home on Fridays.", "On Fridays the user works from home."), "When does the user work from home?"),
    Case(R, ("The cache holds 512 MB.", "The cache is half a gigabyte."), "How big is the cache?"),
    Case(R, ("The lease ends in June 2027.", "The lease runs until June 2027."), "When does the lease end?"),
    Case(R, ("The user's favourite food is sushi.", "The user loves sushi more than anything."), "What is the user's favourite food?"),
    # evidence
    Case(
        E,
        ("The build agent had 8 GB of memory.", "The build agent reported 8 GB of memory.",
         "The build agent has 8 GB of memory.", "The build agent has 16 GB of memory."),
        "How much memory does the build agent have?", OBSERVED, days=3,
    ),
    Case(
        E,
        ("The webhook fired 5 seconds after the payment.", "The webhook log shows a 5 second delay after payment.",
         "The webhook fires 5 seconds after the payment.", "The webhook fires 60 seconds after the payment."),
        "When does the webhook fire?", OBSERVED, days=3,
    ),
    # updates
    Case(U, ("The user's phone is an iPhone 12.", "The user upgraded to an iPhone 15."), "Which phone does the user have?"),
    Case(U, ("The standup is in room 4.", "The standup moved to room 7."), "Where is the standup?"),
    Case(U, ("The user's salary is 50,000 a year.", "The user's salary was raised to 56,000 a year."), "What is the salary?"),
    Case(U, ("The project manager is Dana.", "Dana handed the project over, and the project manager is now Luis."),
         "Who is the project manager?"),
    Case(U, ("The app is hosted on Heroku.", "The app was migrated from Heroku to Fly.io."), "Where is the app hosted?"),
    Case(U, ("The user is single.", "The user got engaged last spring."), "Is the user single?"),
    Case(U, ("The report runs every Monday.", "The report now runs every Wednesday instead."), "When does the report run?"),
    Case(U, ("Our SLA is 99.9%.", "Our SLA was increased to 99.95%."), "What is our SLA?"),
    Case(U, ("The user's gym is Fitness First.", "The user quit Fitness First and joined PureGym."), "Which gym does the user use?"),
)  # fmt: skip
