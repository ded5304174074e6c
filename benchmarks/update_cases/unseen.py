"""The unseen set: written after the last revision of the update rules and never used to change them: its figures
are the honest ones for the rules as they stand."""

from __future__ import annotations

from .case import C, Case, N, R, U, W

UNSEEN_CASES: tuple[Case, ...] = (
    # -- updates ------------------------------------------------------------------------------------------------
    Case(U, ("My dentist is Dr. Haddad.", "I switched dentists; I see Dr. Moreau now."), "Who is my dentist?"),
    Case(
        U,
        ("The quarterly review is on March 3.", "The quarterly review got postponed to March 17."),
        "When is the quarterly review?",
    ),
    Case(
        U,
        ("Our Redis cache has 4 GB of memory.", "We bumped the Redis cache to 16 GB of memory."),
        "How much memory does the Redis cache have?",
    ),
    Case(
        U, ("Noah plays the violin.", "Noah quit the violin and took up the cello."), "Which instrument does Noah play?"
    ),
    Case(
        U,
        ("The invoice is due on the 5th of each month.", "Invoices are now due on the 20th of each month."),
        "When is the invoice due?",
    ),
    Case(U, ("I live in a flat in Glasgow.", "I moved to a house in Edinburgh."), "Where does the user live?"),
    Case(
        U,
        (
            "The login page uses SMS codes for two-factor authentication.",
            "The login page switched from SMS codes to an authenticator app.",
        ),
        "What does the login page use for two-factor authentication?",
    ),
    Case(
        U,
        ("Rosa's favourite band is Radiohead.", "Rosa's favourite band these days is Wet Leg."),
        "What is Rosa's favourite band?",
    ),
    Case(
        U,
        ("The library closes at 7 pm on weekdays.", "The library now closes at 9 pm on weekdays."),
        "When does the library close on weekdays?",
    ),
    Case(
        U,
        ("The company's CEO is Hannah Brooks.", "Hannah Brooks stepped down and Omar Said became CEO."),
        "Who is the company's CEO?",
    ),
    Case(
        U,
        ("I drink three coffees a day.", "I cut down to one coffee a day."),
        "How many coffees does the user drink a day?",
    ),
    Case(U, ("The build uses Webpack.", "The build was migrated from Webpack to Vite."), "What does the build use?"),
    Case(U, ("Felix is 7 years old.", "Felix turned 8 last week."), "How old is Felix?"),
    Case(
        U,
        ("The VPN server is vpn1.example.com.", "The VPN server changed to vpn2.example.com."),
        "What is the VPN server?",
    ),
    # -- chains ---------------------------------------------------------------------------------------------------
    Case(
        C,
        ("The team has 5 engineers.", "The team grew to 7 engineers.", "The team now has 9 engineers."),
        "How many engineers does the team have?",
    ),
    Case(
        C,
        (
            "The app is written in Objective-C.",
            "The app was rewritten in Swift.",
            "The app was rewritten again, in Flutter.",
        ),
        "What is the app written in?",
    ),
    # -- restatements ---------------------------------------------------------------------------------------------
    Case(R, ("My dentist is Dr. Moreau.", "I see Dr. Moreau for my teeth."), "Who is my dentist?"),
    Case(
        R,
        ("The library closes at 9 pm on weekdays.", "On weekdays the library is open until 9 pm."),
        "When does the library close?",
    ),
    Case(R, ("Noah plays the cello.", "Noah is a cellist."), "Which instrument does Noah play?"),
    Case(R, ("The build uses Vite.", "We build with Vite."), "What does the build use?"),
    Case(R, ("The company's CEO is Omar Said.", "Omar Said runs the company as CEO."), "Who is the CEO?"),
    # -- unrelated ------------------------------------------------------------------------------------------------
    Case(N, ("My dentist is Dr. Haddad.", "My GP is Dr. Chen."), "Who is my GP?"),
    Case(
        N,
        ("The library closes at 7 pm on weekdays.", "The pharmacy closes at 6 pm on weekdays."),
        "When does the pharmacy close?",
    ),
    Case(
        N,
        ("Our Redis cache has 4 GB of memory.", "Our Postgres server has 64 GB of memory."),
        "How much memory does the Postgres server have?",
    ),
    Case(N, ("Noah plays the violin.", "Noah's sister plays the flute."), "What does Noah's sister play?"),
    Case(
        N,
        ("The invoice is due on the 5th of each month.", "The payroll runs on the 25th of each month."),
        "When does payroll run?",
    ),
    # -- weaker sources -------------------------------------------------------------------------------------------
    Case(
        W,
        ("Felix is 7 years old.", "Felix is probably 10 years old."),
        "How old is Felix?",
        ("told-by-user", "model-generated"),
    ),
    Case(
        W,
        ("The build uses Webpack.", "The build probably moved to Rollup."),
        "What does the build use?",
        ("tool-result", "inference"),
    ),
    Case(
        W,
        ("I live in Edinburgh.", "The user likely lives in London."),
        "Where does the user live?",
        ("told-by-user", "model-generated"),
    ),
    Case(
        W,
        ("The library closes at 9 pm on weekdays.", "The library seems to close at 5 pm on weekdays."),
        "When does the library close?",
        ("direct-observation", "inference"),
    ),
)
