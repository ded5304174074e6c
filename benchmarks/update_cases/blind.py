"""The first blind set: written before the revision after the held-out run; it judged that revision."""

from __future__ import annotations

from .case import C, Case, N, R, U, W

# Written before the rules were revised after the held-out run, and kept blind: the figures that judge that revision.
BLIND_CASES: tuple[Case, ...] = (
    Case(
        U,
        ("The standing order pays 300 pounds a month.", "The standing order was raised to 350 pounds a month."),
        "How much does the standing order pay?",
    ),
    Case(
        U,
        ("The user's doctor is Dr. Okafor.", "The user changed doctors and now sees Dr. Lindqvist."),
        "Who is the user's doctor?",
    ),
    Case(
        U,
        ("The kids' school starts at 8:30.", "The kids' school now starts at 8:45."),
        "When does the kids' school start?",
    ),
    Case(
        U,
        ("The bakery on Main Street sells sourdough.", "The bakery on Main Street stopped selling sourdough."),
        "Does the bakery sell sourdough?",
    ),
    Case(
        U,
        ("Dana's email address is dana@old-mail.com.", "Dana switched her email address to dana@newmail.org."),
        "What is Dana's email address?",
    ),
    Case(
        U,
        (
            "The analytics dashboard refreshes every 15 minutes.",
            "The analytics dashboard refreshes every 5 minutes since the last release.",
        ),
        "How often does the dashboard refresh?",
    ),
    Case(
        U,
        ("The user's flight leaves from Gate 12.", "The user's flight was moved to Gate 31."),
        "Which gate does the flight leave from?",
    ),
    Case(
        U,
        ("The project is hosted on Bitbucket.", "The project was migrated from Bitbucket to GitLab."),
        "Where is the project hosted?",
    ),
    Case(
        U,
        ("Grandma lives in a house in Porto.", "Grandma moved into a retirement home in Braga."),
        "Where does grandma live?",
    ),
    Case(
        U,
        ("The maximum upload size is 10 MB.", "The maximum upload size was increased to 50 MB."),
        "What is the maximum upload size?",
    ),
    Case(
        U,
        ("The user's car is a blue Ford Focus.", "The user sold the Ford Focus and now drives a red Mazda 3."),
        "What car does the user drive?",
    ),
    Case(
        U,
        ("The team's Slack channel is #payments.", "The team's Slack channel was renamed to #billing-team."),
        "What is the team's Slack channel?",
    ),
    Case(
        U, ("Carlos is on the night shift.", "Carlos is no longer on the night shift."), "Is Carlos on the night shift?"
    ),
    Case(
        U, ("The rent is 1200 euros per month.", "The rent went up to 1350 euros per month."), "How much is the rent?"
    ),
    Case(
        C,
        ("The meeting is scheduled for 2pm.", "The meeting was moved to 3pm.", "The meeting was moved again, to 4pm."),
        "When is the meeting?",
    ),
    Case(
        C,
        (
            "The cluster runs Kubernetes 1.26.",
            "The cluster was upgraded to Kubernetes 1.28.",
            "The cluster was upgraded to Kubernetes 1.30.",
        ),
        "Which Kubernetes version does the cluster run?",
    ),
    Case(R, ("The rent is 1200 euros per month.", "Each month the rent comes to 1200 euros."), "How much is the rent?"),
    Case(R, ("Carlos is on the night shift.", "Carlos works nights."), "When does Carlos work?"),
    Case(R, ("The project is hosted on GitLab.", "GitLab hosts the project."), "Where is the project hosted?"),
    Case(R, ("The maximum upload size is 50 MB.", "Uploads can be up to 50 MB."), "What is the maximum upload size?"),
    Case(
        R,
        ("Dana's email address is dana@newmail.org.", "You can reach Dana at dana@newmail.org."),
        "What is Dana's email?",
    ),
    Case(N, ("The rent is 1200 euros per month.", "The deposit is 2400 euros."), "How much is the deposit?"),
    Case(N, ("Carlos is on the night shift.", "Maya is on the day shift."), "Which shift is Maya on?"),
    Case(
        N,
        ("The maximum upload size is 10 MB.", "The maximum number of users is 10."),
        "What is the maximum number of users?",
    ),
    Case(
        N,
        ("The user's flight leaves from Gate 12.", "The user's train leaves from platform 4."),
        "Where does the train leave from?",
    ),
    Case(
        N,
        ("The bakery on Main Street sells sourdough.", "The cafe on Main Street sells espresso."),
        "What does the cafe sell?",
    ),
    Case(
        N,
        ("The kids' school starts at 8:30.", "The kids' football practice starts at 17:00."),
        "When does football practice start?",
    ),
    Case(
        W,
        ("The rent is 1200 euros per month.", "The rent is probably 1500 euros per month."),
        "How much is the rent?",
        ("told-by-user", "model-generated"),
    ),
    Case(
        W,
        ("The project is hosted on GitLab.", "The project was likely moved to GitHub."),
        "Where is the project hosted?",
        ("tool-result", "inference"),
    ),
    Case(
        W,
        ("Carlos is on the night shift.", "Carlos switched to the day shift."),
        "Which shift is Carlos on?",
        ("direct-observation", "model-generated"),
    ),
)
