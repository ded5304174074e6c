"""Knowledge-update cases, written for Audrey's own evaluation (not drawn from any benchmark's data).

``CASES`` (70) is the development set: the offline heuristic of ``audrey_core.conflict`` was built while looking at
it, so its figures there are optimistic. ``HELDOUT_CASES`` (30) was written afterwards; after its first run, the
rules were revised for the kinds of misses it showed, so it too is a development set now. ``BLIND_CASES`` (30) was
written before that revision and judges it.

Each case is a short history: statements told weeks apart, and a question whose answer is the newest statement.

* ``update``: a fact replaced later (a new address, manager, limit, schedule, tool, diet, ...): the newest statement
  must be recalled first and the older one flagged (superseded, or in a recorded contradiction);
* ``chain``: two updates in a row (A -> B -> C): C first, A and B flagged;
* ``restatement``: the same fact said again in other words: nothing may be flagged;
* ``unrelated``: a similar-sounding statement about another subject or attribute, both true: nothing flagged;
* ``weaker``: a change claimed by a less reliable source (inference, model-generated) than the told or observed
  fact: it must not supersede it (a recorded contradiction is right; silently replacing the fact is wrong).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """Statements in the order they were learned, ``days`` apart; ``query`` asks for the current fact."""

    kind: str
    statements: tuple[str, ...]
    query: str
    sources: tuple[str, ...] = ()  # one per statement; told-by-user by default
    days: int = 40


U, C, R, N, W = "update", "chain", "restatement", "unrelated", "weaker"

CASES: tuple[Case, ...] = (
    # -- updates: numbers, places, people, tools, days, times, states ---------------------------------------------
    Case(
        U,
        ("The API rate limit is 100 requests per second.", "The API rate limit was lowered to 25 requests per second."),
        "What is the API rate limit?",
    ),
    Case(
        U, ("Maria lives at 12 Oak Street in Leeds.", "Maria moved to 40 Elm Road in York."), "Where does Maria live?"
    ),
    Case(U, ("My manager is Priya Shah.", "My manager is now Tom Becker."), "Who is my manager?"),
    Case(
        U,
        (
            "The team uses Jenkins for continuous integration.",
            "The team switched from Jenkins to GitHub Actions for continuous integration.",
        ),
        "What does the team use for CI?",
    ),
    Case(
        U, ("The weekly standup is on Mondays.", "The weekly standup moved to Tuesdays."), "When is the weekly standup?"
    ),
    Case(
        U, ("The daily sync starts at 9am.", "The daily sync starts at 10am."), "What time does the daily sync start?"
    ),
    Case(U, ("Sam is vegetarian.", "Sam is no longer vegetarian and eats fish again."), "Is Sam vegetarian?"),
    Case(
        U,
        ("The production database is PostgreSQL 13.", "The production database was upgraded to PostgreSQL 16."),
        "Which PostgreSQL version does production run?",
    ),
    Case(
        U,
        ("The support email is help@acme.io.", "The support email changed to support@acme.io."),
        "What is the support email address?",
    ),
    Case(
        U,
        ("The office is on the third floor.", "The office moved to the fifth floor."),
        "Which floor is the office on?",
    ),
    Case(
        U,
        ("Lena works at Google as a data engineer.", "Lena quit Google and now works at Stripe."),
        "Where does Lena work?",
    ),
    Case(
        U,
        ("Our cloud provider is AWS.", "We migrated our cloud provider from AWS to Google Cloud."),
        "Which cloud provider do we use?",
    ),
    Case(
        U,
        ("The monthly subscription costs 20 dollars.", "The monthly subscription price increased to 25 dollars."),
        "How much is the monthly subscription?",
    ),
    Case(
        U,
        ("The project deadline is March 15.", "The project deadline was pushed back to April 30."),
        "When is the project deadline?",
    ),
    Case(
        U,
        ("The user's favourite editor is Vim.", "The user switched to VS Code as their favourite editor."),
        "Which editor does the user prefer?",
    ),
    Case(
        U,
        ("Jake's phone number is 555-0142.", "Jake has a new phone number: 555-0199."),
        "What is Jake's phone number?",
    ),
    Case(
        U,
        ("The frontend is written in Angular.", "The frontend was rewritten in React."),
        "What framework is the frontend written in?",
    ),
    Case(U, ("The team has 6 engineers.", "The team grew to 9 engineers."), "How many engineers are on the team?"),
    Case(
        U,
        ("The service is owned by the payments team.", "Ownership of the service moved to the platform team."),
        "Which team owns the service?",
    ),
    Case(U, ("Backups run every night at 2am.", "Backups now run every night at 4am."), "When do backups run?"),
    Case(
        U,
        ("The default branch is called master.", "The default branch was renamed to main."),
        "What is the default branch called?",
    ),
    Case(U, ("Anna is single.", "Anna got married last month."), "Is Anna married?"),
    Case(
        U,
        ("The user drinks coffee every morning.", "The user quit coffee and drinks tea every morning instead."),
        "What does the user drink in the morning?",
    ),
    Case(
        U, ("The cache layer is Memcached.", "The cache layer was replaced with Redis."), "Which cache layer do we use?"
    ),
    Case(
        U,
        ("The store opens at 8am on weekdays.", "The store now opens at 7am on weekdays."),
        "When does the store open on weekdays?",
    ),
    Case(
        U,
        ("The password must be at least 8 characters.", "The password must now be at least 12 characters."),
        "How long must the password be?",
    ),
    Case(U, ("Omar is studying at MIT.", "Omar transferred from MIT to Stanford."), "Where does Omar study?"),
    Case(U, ("The user's dog is called Rex.", "The user renamed their dog to Max."), "What is the user's dog called?"),
    Case(
        U,
        ("The build takes 20 minutes.", "After the caching work the build takes 6 minutes."),
        "How long does the build take?",
    ),
    Case(
        U,
        ("The API version in use is v2.", "The client was upgraded to API version v3."),
        "Which API version is in use?",
    ),
    Case(
        U,
        ("The user's timezone is Central European Time.", "The user moved and their timezone is now Pacific Time."),
        "What is the user's timezone?",
    ),
    Case(U, ("The shop is open on Sundays.", "The shop is no longer open on Sundays."), "Is the shop open on Sundays?"),
    Case(
        U,
        ("The user runs 5 kilometres every day.", "The user now runs 10 kilometres every day."),
        "How far does the user run daily?",
    ),
    Case(
        U,
        ("The staging server is at 10.0.0.5.", "The staging server moved to 10.0.0.9."),
        "What is the staging server's address?",
    ),
    # -- chains of two updates --------------------------------------------------------------------------------------
    Case(
        C,
        (
            "The on-call engineer this week is Ravi.",
            "The on-call engineer this week is now Mei.",
            "The on-call engineer this week changed again, to Jonas.",
        ),
        "Who is the on-call engineer this week?",
    ),
    Case(
        C,
        (
            "The release is planned for version 1.4.",
            "The release was bumped to version 1.5.",
            "The release is now version 2.0.",
        ),
        "Which version is the release?",
    ),
    Case(
        C,
        ("Kim lives in Lisbon.", "Kim moved to Madrid.", "Kim moved again, from Madrid to Berlin."),
        "Where does Kim live?",
    ),
    Case(
        C,
        (
            "The rate limit is 50 requests per second.",
            "The rate limit was raised to 80 requests per second.",
            "The rate limit was lowered to 60 requests per second.",
        ),
        "What is the rate limit?",
    ),
    Case(
        C,
        (
            "The meeting room is Atlas.",
            "The meeting was moved to room Borealis.",
            "The meeting moved once more, to room Cygnus.",
        ),
        "Which room is the meeting in?",
    ),
    Case(
        C,
        (
            "The user's main language at work is Java.",
            "The user switched to Kotlin at work.",
            "The user switched from Kotlin to Go at work.",
        ),
        "What language does the user use at work?",
    ),
    # -- restatements: the same fact again -------------------------------------------------------------------------
    Case(
        R,
        ("The API rate limit is 100 requests per second.", "The API allows up to 100 requests per second."),
        "What is the API rate limit?",
    ),
    Case(R, ("Maria lives in Leeds.", "Maria's home is in Leeds."), "Where does Maria live?"),
    Case(R, ("My manager is Priya Shah.", "Priya Shah is my manager."), "Who is my manager?"),
    Case(R, ("The standup is on Mondays.", "We hold the standup every Monday."), "When is the standup?"),
    Case(R, ("The team uses Jenkins for CI.", "Continuous integration runs on Jenkins."), "What runs CI?"),
    Case(R, ("Sam is vegetarian.", "Sam does not eat meat."), "Is Sam vegetarian?"),
    Case(R, ("The build takes 20 minutes.", "A full build needs about 20 minutes."), "How long does the build take?"),
    Case(R, ("The office is on the third floor.", "Our office is on floor 3."), "Which floor is the office on?"),
    Case(R, ("Backups run nightly at 2am.", "Every night at 2am the backups run."), "When do backups run?"),
    Case(R, ("The user's dog is called Rex.", "Rex is the name of the user's dog."), "What is the dog called?"),
    Case(R, ("The cache layer is Redis.", "We cache with Redis."), "Which cache do we use?"),
    Case(R, ("Lena works at Stripe.", "Lena is employed by Stripe."), "Where does Lena work?"),
    # -- unrelated: similar words, another subject or attribute, both true ------------------------------------------
    Case(
        N,
        ("The API rate limit is 100 requests per second.", "The API timeout is 30 seconds."),
        "What is the API timeout?",
    ),
    Case(N, ("Maria lives in Leeds.", "Maria's sister lives in York."), "Where does Maria's sister live?"),
    Case(N, ("My manager is Priya Shah.", "My mentor is Tom Becker."), "Who is my mentor?"),
    Case(N, ("The standup is on Mondays.", "The retrospective is on Fridays."), "When is the retrospective?"),
    Case(N, ("The user has a dog called Rex.", "The user has a cat called Tom."), "What is the user's cat called?"),
    Case(N, ("Deploys happen on Fridays.", "Backups happen on Sundays."), "When do backups happen?"),
    Case(N, ("Alice moved to Berlin in 2019.", "Bob moved to Berlin in 2021."), "When did Bob move to Berlin?"),
    Case(N, ("The frontend is written in React.", "The backend is written in Go."), "What is the backend written in?"),
    Case(
        N,
        ("The production database is PostgreSQL.", "The analytics warehouse is BigQuery."),
        "What is the analytics warehouse?",
    ),
    Case(N, ("Lena works at Stripe.", "Lena's brother works at Google."), "Where does Lena's brother work?"),
    Case(N, ("The store opens at 8am.", "The store closes at 8pm."), "When does the store close?"),
    Case(
        N,
        ("The user drinks coffee in the morning.", "The user drinks tea in the evening."),
        "What does the user drink in the evening?",
    ),
    # -- a weaker source claims a change: never a silent replacement ------------------------------------------------
    Case(
        W,
        ("The API rate limit is 100 requests per second.", "The API rate limit is probably 50 requests per second."),
        "What is the API rate limit?",
        ("told-by-user", "model-generated"),
    ),
    Case(
        W,
        ("My manager is Priya Shah.", "My manager is now Tom Becker."),
        "Who is my manager?",
        ("told-by-user", "inference"),
    ),
    Case(
        W,
        (
            "The team uses Jenkins for continuous integration.",
            "The team switched to CircleCI for continuous integration.",
        ),
        "What does the team use for CI?",
        ("direct-observation", "model-generated"),
    ),
    Case(
        W,
        ("Maria lives in Leeds.", "Maria moved to Manchester."),
        "Where does Maria live?",
        ("told-by-user", "inference"),
    ),
    Case(
        W,
        ("The standup is on Mondays.", "The standup moved to Wednesdays."),
        "When is the standup?",
        ("tool-result", "model-generated"),
    ),
    Case(
        W,
        ("The build takes 20 minutes.", "The build takes 45 minutes."),
        "How long does the build take?",
        ("direct-observation", "inference"),
    ),
)


# Written after the heuristic was built, and never used to change it: the figures on this set are the honest ones.
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


def sources_of(case: Case) -> tuple[str, ...]:
    """The source of each statement (told-by-user unless the case says otherwise)."""
    return case.sources or ("told-by-user",) * len(case.statements)


__all__ = ["BLIND_CASES", "CASES", "HELDOUT_CASES", "Case", "sources_of"]
