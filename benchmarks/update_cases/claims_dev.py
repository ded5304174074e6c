"""Routine notes about one subject and look-alike subjects: issue 73's development set, written after its blind set
was frozen and looked at while the claims parser is built, so its figures are a development set's.

Routine notes: three compatible notes about one subject, told days apart; none contradicts another, and the question
asks about the first. Look-alikes: the same frame about two people or things; neither flags the other, and a question
about the first must recall it first although the second is newer."""

from __future__ import annotations

from .case import Case, L, T

ROUTINE_DEV_CASES: tuple[Case, ...] = (
    Case(
        T,
        (
            "The search API had its old feature flags cleaned up.",
            "The search API had its config loading refactored.",
            "The search API got a new health check endpoint.",
        ),
        "What happened to the search API's feature flags?",
    ),
    Case(
        T,
        (
            "The billing service moved to the platform team's ownership.",
            "The billing service gained a retry queue for failed charges.",
            "The billing service now logs every refund.",
        ),
        "Who owns the billing service?",
    ),
    Case(
        T,
        (
            "Priya repainted the kitchen.",
            "Priya fixed the leaking tap in the bathroom.",
            "Priya planted tomatoes in the garden.",
        ),
        "What did Priya do to the kitchen?",
    ),
    Case(
        T,
        (
            "The mobile app's login screen was redesigned.",
            "The mobile app's crash reporter was upgraded.",
            "The mobile app added a dark theme.",
        ),
        "What changed on the mobile app's login screen?",
    ),
    Case(
        T,
        ("The user ran 10 km on Saturday.", "The user swam 2 km on Tuesday.", "The user cycled 40 km on Thursday."),
        "How far did the user run on Saturday?",
        days=3,
    ),
    Case(
        T,
        (
            "The warehouse database was backed up to cold storage.",
            "The warehouse database had its indexes rebuilt.",
            "The warehouse database was patched to version 15.4.",
        ),
        "Where was the warehouse database backed up to?",
    ),
    Case(
        T,
        ("Tom finished reading Dune.", "Tom started a pottery class.", "Tom visited his grandparents in Porto."),
        "What book did Tom finish?",
    ),
    Case(
        T,
        (
            "The checkout page had its payment form simplified.",
            "The checkout page had its images compressed.",
            "The checkout page got an address autocomplete.",
        ),
        "What was simplified on the checkout page?",
    ),
    Case(
        T,
        (
            "The user's car had its tyres replaced.",
            "The user's car had its oil changed.",
            "The user's car passed its inspection.",
        ),
        "What was replaced on the user's car?",
    ),
    Case(
        T,
        (
            "The data pipeline had its schedule documented.",
            "The data pipeline had its alerts tuned.",
            "The data pipeline had its unit tests extended.",
        ),
        "What was documented for the data pipeline?",
    ),
    Case(
        T,
        ("Lena met the new neighbours.", "Lena bought a second-hand bike.", "Lena signed up for a choir."),
        "Who did Lena meet?",
        days=5,
    ),
    Case(
        T,
        (
            "The auth service rotated its signing keys.",
            "The auth service added rate limiting on logins.",
            "The auth service dropped support for TLS 1.0.",
        ),
        "What did the auth service rotate?",
    ),
)

LOOKALIKE_DEV_CASES: tuple[Case, ...] = (
    Case(
        L,
        ("The user's sister lives in Lyon.", "The user's brother lives in Berlin."),
        "Where does the user's sister live?",
    ),
    Case(L, ("Maria works at a bakery.", "Marta works at a pharmacy."), "Where does Maria work?"),
    Case(
        L,
        ("The staging cluster runs Kubernetes 1.27.", "The production cluster runs Kubernetes 1.29."),
        "What Kubernetes version does the staging cluster run?",
    ),
    Case(
        L,
        ("The user's daughter is allergic to eggs.", "The user's son is allergic to milk."),
        "What is the user's daughter allergic to?",
    ),
    Case(
        L,
        ("The orders service is written in Go.", "The payments service is written in Rust."),
        "What language is the orders service written in?",
    ),
    Case(L, ("Ahmed's birthday is on March 3.", "Amira's birthday is on July 19."), "When is Ahmed's birthday?"),
    Case(
        L,
        ("The user's mother drives a Toyota.", "The user's father drives a Volvo."),
        "What car does the user's mother drive?",
    ),
    Case(
        L,
        ("The front-end team meets on Mondays.", "The data team meets on Thursdays."),
        "When does the front-end team meet?",
    ),
    Case(
        L,
        ("The office in Madrid opens at 8 am.", "The office in Dublin opens at 9 am."),
        "When does the office in Madrid open?",
    ),
    Case(L, ("The user's cat is called Miso.", "The user's dog is called Pepper."), "What is the user's cat called?"),
    Case(
        L,
        ("The EU bucket keeps logs for 30 days.", "The US bucket keeps logs for 90 days."),
        "How long does the EU bucket keep logs?",
    ),
    Case(L, ("The user's manager is Helen.", "The user's mentor is Dev."), "Who is the user's manager?"),
    Case(L, ("Jonas plays the cello.", "Jonah plays the violin."), "What instrument does Jonas play?"),
    Case(
        L,
        ("The iOS app supports iOS 16 and later.", "The Android app supports Android 12 and later."),
        "What versions does the iOS app support?",
    ),
)

CLAIMS_DEV_CASES = ROUTINE_DEV_CASES + LOOKALIKE_DEV_CASES
