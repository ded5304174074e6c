"""The development set: the offline heuristic was built while looking at it."""

from __future__ import annotations

from .case import C, Case, N, R, U, W

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
