"""The trap set's second blind part: written after the first blind part had judged the rules once and before its
misses were looked at. It judged that revision blind (34.8% of its traps hidden before issue 31, 4.3% after); its
misses were then looked at for the last revision, so it is a development set now. The blind part is
:mod:`.traps_blind3`."""

from __future__ import annotations

from .case import Case, E, N, Q, R, U

OBSERVED = ("direct-observation", "tool-result", "told-by-user", "told-by-user")

SECOND_BLIND_TRAP_CASES: tuple[Case, ...] = (
    # qualified
    Case(Q, ("The daily build runs at 1am.", "On release days the daily build runs at 5pm."), "When does the daily build run?"),
    Case(Q, ("Delivery costs 5 euros.", "For orders above 50 euros delivery costs nothing."), "How much is delivery?"),
    Case(Q, ("The cafeteria opens at 7:30.", "During exam week the cafeteria opens at 6:30."), "When does the cafeteria open?"),
    Case(Q, ("The API returns 100 results per page.", "In the sandbox the API returns 10 results per page."),
         "How many results per page does the API return?"),
    Case(Q, ("The user sleeps 8 hours a night.", "When on call the user sleeps about 5 hours a night."),
         "How much does the user sleep?"),
    Case(Q, ("Tickets cost 12 pounds.", "For students tickets cost 8 pounds."), "How much do tickets cost?"),
    Case(Q, ("The pool is open until 9pm.", "Over the holidays the pool is open until 6pm."), "When does the pool close?"),
    Case(Q, ("The nightly export keeps 30 days of data.", "In the EU region the nightly export keeps 14 days of data."),
         "How many days does the export keep?"),
    # another entity
    Case(N, ("Hannah's car is parked in bay 12.", "Hannah's brother's car is parked in bay 19."), "Where is Hannah's car?"),
    Case(N, ("The staging cluster has 3 nodes.", "The production cluster has 12 nodes."), "How many nodes does staging have?"),
    Case(N, ("Kai's dentist appointment is on Monday.", "Kai said Mina's dentist appointment is on Thursday."),
         "When is Kai's dentist appointment?"),
    Case(N, ("The user's cat is 3 years old.", "The user's neighbour's cat is 11 years old."), "How old is the user's cat?"),
    Case(N, ("Team Falcon meets at 2pm.", "Team Osprey meets at 4pm."), "When does Team Falcon meet?"),
    Case(N, ("The user likes jazz and blues.", "The user also likes soul."), "What music does the user like?"),
    Case(N, ("The limit is 10 uploads per day.", 'The error said "quota of 5 uploads reached".'), "What is the upload limit?"),
    # restatements
    Case(R, ("The parcel weighs 2 kg.", "The parcel weighs 2000 grams."), "How heavy is the parcel?"),
    Case(R, ("The trial lasts 14 days.", "The trial is two weeks long."), "How long is the trial?"),
    Case(R, ("The meeting starts at 3pm.", "The meeting begins at 15:00."), "When does the meeting start?"),
    Case(R, ("The user has been vegan for years.", "The user eats a vegan diet."), "What does the user eat?"),
    Case(R, ("Setup takes 20 minutes.", "Setup takes between 15 and 25 minutes."), "How long does setup take?"),
    Case(R, ("The user commutes by bike.", "The user cycles to work."), "How does the user commute?"),
    # evidence
    Case(
        E,
        ("The cron job ran every 10 minutes.", "The scheduler shows the cron job every 10 minutes.",
         "The cron job runs every 10 minutes.", "The cron job runs every 30 minutes."),
        "How often does the cron job run?", OBSERVED, days=3,
    ),
    Case(
        E,
        ("The disk filled up at 500 GB.", "The monitoring tool reports a 500 GB disk.",
         "The disk holds 500 GB.", "The disk holds 1 TB."),
        "How big is the disk?", OBSERVED, days=3,
    ),
    # updates
    Case(U, ("The user's rent is 900 pounds a month.", "The user's rent went up to 950 pounds a month."), "What is the rent?"),
    Case(U, ("The team lead is Sofia.", "Sofia left and the team lead is now Arjun."), "Who is the team lead?"),
    Case(U, ("The build uses Node 18.", "The build was upgraded to Node 20."), "Which Node does the build use?"),
    Case(U, ("The office wifi is called Acme-Guest.", "The office wifi was renamed to Acme-Visitors."),
         "What is the office wifi called?"),
    Case(U, ("The user's dentist is in Leeds.", "The user switched to a dentist in York."), "Where is the user's dentist?"),
    Case(U, ("Standup is at 9am.", "From next week standup is at 9:30."), "When is standup?"),
    Case(U, ("The monthly report is due on the 5th.", "The monthly report is now due on the 10th."),
         "When is the monthly report due?"),
)  # fmt: skip
