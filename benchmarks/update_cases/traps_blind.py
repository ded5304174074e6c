"""The trap set's first blind part: written with :mod:`.traps`, before any rule was changed for issue 31. It judged the
first revision blind (34.6% of its traps hidden before, 11.5% after); its misses were then looked at for the next
revision, so it is a development set now. The blind part is :mod:`.traps_blind2`."""

from __future__ import annotations

from .case import Case, E, N, Q, R, U

SEEN = ("direct-observation", "tool-result", "told-by-user", "told-by-user")
LOGGED = ("tool-result", "direct-observation", "told-by-user", "told-by-user")

BLIND_TRAP_CASES: tuple[Case, ...] = (
    # qualified
    Case(Q, ("The minimum password length is 12 characters.", "For admin accounts the minimum password length is 16 characters."),
         "What is the minimum password length?"),
    Case(Q, ("The library closes at 8pm.", "On Sundays the library closes at 5pm."), "When does the library close?"),
    Case(Q, ("Refunds are processed within 5 days.", "In Germany refunds are processed within 14 days."),
         "How fast are refunds processed?"),
    Case(Q, ("The user runs 10 kilometres on Saturdays.", "When it rains the user runs 5 kilometres on Saturdays."),
         "How far does the user run on Saturdays?"),
    Case(Q, ("The connection pool has 20 connections.", "In the staging environment the connection pool has 5 connections."),
         "How big is the connection pool?"),
    Case(Q, ("The newsletter goes out every Monday.", "Over the summer break the newsletter goes out every other Monday."),
         "When does the newsletter go out?"),
    Case(Q, ("Lunch is served at noon.", "On the first Friday of each month lunch is served at 1pm."), "When is lunch served?"),
    Case(Q, ("The retry limit is 3 attempts.", "The retry limit is 10 attempts for idempotent requests."),
         "What is the retry limit?"),
    Case(Q, ("The train to work takes 40 minutes.", "At rush hour the train to work takes 55 minutes."),
         "How long does the train to work take?"),
    # another entity
    Case(N, ("Carla's office is room 210.", "Carla's assistant's office is room 214."), "Which room is Carla's office?"),
    Case(N, ("The user's son plays the violin.", "The user's son's teacher plays the cello."), "What does the user's son play?"),
    Case(N, ("Ravi's email is ravi@example.com.", "Nina's email is nina@example.com."), "What is Ravi's email?"),
    Case(N, ("The billing service is written in Go.", "The search service is written in Rust."),
         "What language is the billing service in?"),
    Case(N, ("My mother's birthday is in April.", "My mother's sister's birthday is in October."),
         "When is my mother's birthday?"),
    Case(N, ("The Berlin office has 40 employees.", "The Munich office has 15 employees."),
         "How many people work in the Berlin office?"),
    Case(N, ("The user owns a Kindle.", "The user also owns a Kobo."), "Which e-readers does the user own?"),
    Case(N, ("The deadline for the grant is June 30.", "Lena said the deadline for her visa is June 10."),
         "When is the grant deadline?"),
    # restatements
    Case(R, ("The session timeout is 15 minutes.", "Sessions time out after 900 seconds."), "What is the session timeout?"),
    Case(R, ("The user has three cats.", "The user has 3 cats at home."), "How many cats does the user have?"),
    Case(R, ("The flight takes about 7 hours.", "The flight is roughly 6 to 8 hours long."), "How long is the flight?"),
    Case(R, ("The user is allergic to peanuts.", "The user has a peanut allergy."), "What is the user allergic to?"),
    Case(R, ("Standup lasts 15 minutes.", "Standup is a quarter of an hour long."), "How long is standup?"),
    Case(R, ("The warehouse holds 2 TB of logs.", "About 2000 GB of logs sit in the warehouse."), "How much is in the warehouse?"),
    Case(R, ("Oliver is a nurse at St Mary's.", "Oliver works as a nurse at St Mary's hospital."), "What does Oliver do?"),
    # evidence
    Case(
        E,
        ("The batch import took 40 minutes.", "The import job took 40 minutes according to the scheduler.",
         "The batch import takes 40 minutes.", "The batch import takes 90 minutes."),
        "How long does the batch import take?", LOGGED, days=3,
    ),
    Case(
        E,
        ("The vendor's API returned at most 50 items per page.", "The vendor's API pages hold 50 items.",
         "The vendor's API returns 50 items per page.", "The vendor's API returns 200 items per page."),
        "How many items per page does the vendor's API return?", SEEN, days=3,
    ),
    # updates
    Case(U, ("The user's gym membership costs 35 euros a month.", "The user's gym membership went up to 42 euros a month."),
         "How much is the gym membership?"),
    Case(U, ("The release train leaves every two weeks.", "The release train now leaves every week."),
         "How often does the release train leave?"),
    Case(U, ("Marco works in the London office.", "Marco transferred to the Dublin office."), "Which office is Marco in?"),
    Case(U, ("The user drives a Golf.", "The user sold the Golf and now drives a Model 3."), "What does the user drive?"),
    Case(U, ("The wifi password is sunflower7.", "The wifi password is now harbour22."), "What is the wifi password?"),
    Case(U, ("The quarterly review is in the big conference room.", "The quarterly review moved to the rooftop terrace."),
         "Where is the quarterly review?"),
    Case(U, ("The default branch protection requires 1 reviewer.", "Branch protection was raised to require 2 reviewers."),
         "How many reviewers does branch protection require?"),
    Case(U, ("The user's landlord is Mr. Patel.", "The user has a new landlord, Ms. Greene."), "Who is the user's landlord?"),
)  # fmt: skip
