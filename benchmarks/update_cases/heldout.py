"""The held-out set: written after the heuristic was built; the rules were revised after its first run."""

from __future__ import annotations

from .case import C, Case, N, R, U, W

# Written after the heuristic was built; the rules were revised after its first run.
HELDOUT_CASES: tuple[Case, ...] = (
    Case(U, ("The car is parked in lot B.", "The car was moved to lot D."), "Where is the car parked?"),
    Case(
        U,
        ("Ines' favourite band is Radiohead.", "Ines' favourite band is now Arctic Monkeys."),
        "What is Ines' favourite band?",
    ),
    Case(
        U,
        ("The Wi-Fi password is orange42.", "The Wi-Fi password was changed to falcon77."),
        "What is the Wi-Fi password?",
    ),
    Case(
        U,
        ("The quarterly review happens in Room 4.", "The quarterly review was relocated to Room 9."),
        "Where is the quarterly review?",
    ),
    Case(
        U,
        ("Our main supplier is Acme Corp.", "We replaced Acme Corp with Globex as our main supplier."),
        "Who is our main supplier?",
    ),
    Case(
        U, ("The API key expires in 90 days.", "The API key now expires in 30 days."), "When does the API key expire?"
    ),
    Case(
        U,
        ("The user's preferred language is French.", "The user asked to switch their preferred language to Spanish."),
        "What is the user's preferred language?",
    ),
    Case(U, ("Noah is the team lead.", "Noah stepped down and Emma is the team lead now."), "Who is the team lead?"),
    Case(U, ("The gym closes at 10pm.", "The gym closes at 11pm from next week."), "When does the gym close?"),
    Case(
        U,
        ("The invoice is due on the 1st of each month.", "Invoices are now due on the 15th of each month."),
        "When is the invoice due?",
    ),
    Case(
        U,
        ("The server runs Ubuntu 20.04.", "The server was upgraded to Ubuntu 24.04."),
        "Which Ubuntu version does the server run?",
    ),
    Case(
        U, ("Priya's desk is next to the window.", "Priya moved her desk to the back corner."), "Where is Priya's desk?"
    ),
    Case(
        U,
        ("The newsletter goes out on Thursdays.", "The newsletter schedule changed to Mondays."),
        "When does the newsletter go out?",
    ),
    Case(
        U,
        ("The company has 40 employees.", "The company now has 55 employees."),
        "How many employees does the company have?",
    ),
    Case(
        U,
        ("The user is allergic to peanuts.", "The user is no longer considered allergic to peanuts after a new test."),
        "Is the user allergic to peanuts?",
    ),
    Case(
        U,
        ("The logging level is set to debug.", "The logging level was switched from debug to warning."),
        "What is the logging level?",
    ),
    Case(
        C,
        (
            "The sprint length is 1 week.",
            "The sprint length was changed to 2 weeks.",
            "The sprint length is now 3 weeks.",
        ),
        "How long is a sprint?",
    ),
    Case(
        C,
        ("Leo works in Sales.", "Leo transferred from Sales to Marketing.", "Leo moved from Marketing to Product."),
        "Which department is Leo in?",
    ),
    Case(R, ("The gym closes at 10pm.", "At 10pm the gym closes."), "When does the gym close?"),
    Case(R, ("Our main supplier is Acme Corp.", "Acme Corp supplies most of our parts."), "Who is our main supplier?"),
    Case(
        R,
        ("The server runs Ubuntu 20.04.", "Ubuntu 20.04 is the server's operating system."),
        "Which OS does the server run?",
    ),
    Case(R, ("Noah is the team lead.", "Noah leads the team."), "Who leads the team?"),
    Case(
        R,
        ("The company has 40 employees.", "Forty people work at the company."),
        "How many people work at the company?",
    ),
    Case(N, ("The gym closes at 10pm.", "The pool closes at 8pm."), "When does the pool close?"),
    Case(N, ("Noah is the team lead.", "Emma is the product manager."), "Who is the product manager?"),
    Case(N, ("The server runs Ubuntu 20.04.", "The laptop runs macOS 14."), "What does the laptop run?"),
    Case(N, ("The car is parked in lot B.", "The bike is locked in the basement."), "Where is the bike?"),
    Case(N, ("Priya's desk is next to the window.", "Priya's plant is next to the window."), "Where is Priya's plant?"),
    Case(
        W,
        ("The Wi-Fi password is orange42.", "The Wi-Fi password might be falcon77 now."),
        "What is the Wi-Fi password?",
        ("told-by-user", "model-generated"),
    ),
    Case(
        W,
        ("The company has 40 employees.", "The company probably has 60 employees."),
        "How many employees does the company have?",
        ("tool-result", "inference"),
    ),
)
