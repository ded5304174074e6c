"""The fresh set: written before the rules were revised after the first blind run, to judge that revision; a last
revision then looked at its misses. Phrased as people say things to an assistant, in the first and third person."""

from __future__ import annotations

from .case import C, Case, N, R, U, W

FRESH_CASES: tuple[Case, ...] = (
    # -- updates ------------------------------------------------------------------------------------------------
    Case(
        U,
        ("I work at Deloitte as an auditor.", "I left Deloitte last month and joined KPMG."),
        "Where does the user work?",
    ),
    Case(U, ("Our standup is at 9:15 every morning.", "We pushed the standup to 10:00."), "What time is standup?"),
    Case(
        U,
        ("The staging database runs on Postgres 13.", "Staging is on Postgres 16 now."),
        "Which Postgres version does staging run?",
    ),
    Case(U, ("My phone number is 555-0142.", "My new phone number is 555-0199."), "What is my phone number?"),
    Case(
        U,
        (
            "Lena is the product owner for the mobile app.",
            "Lena handed the mobile app over to Raj, who is now its product owner.",
        ),
        "Who is the product owner of the mobile app?",
    ),
    Case(
        U,
        ("The office Wi-Fi password is sunflower42.", "The office Wi-Fi password was changed to maple-88."),
        "What is the office Wi-Fi password?",
    ),
    Case(U, ("I'm vegetarian.", "I started eating fish again, so I'm pescatarian now."), "What is the user's diet?"),
    Case(
        U,
        ("The nightly backup runs at 2 am.", "The nightly backup now runs at 4 am to avoid the batch jobs."),
        "When does the nightly backup run?",
    ),
    Case(
        U,
        ("We deploy with Jenkins.", "We replaced Jenkins with GitHub Actions for deployments."),
        "What do we deploy with?",
    ),
    Case(U, ("Tom's daughter is in year 3.", "Tom's daughter moved up to year 4."), "Which year is Tom's daughter in?"),
    Case(
        U,
        ("The gym membership costs 45 dollars a month.", "The gym raised the membership to 52 dollars a month."),
        "How much is the gym membership?",
    ),
    Case(
        U,
        ("The shared drive is called Team-Docs.", "The shared drive was renamed to Engineering-Docs."),
        "What is the shared drive called?",
    ),
    Case(
        U,
        ("I take the 7:40 train to work.", "I now take the 8:10 train to work."),
        "Which train does the user take to work?",
    ),
    Case(U, ("Sofia is single.", "Sofia got married in June."), "Is Sofia married?"),
    Case(
        U,
        ("The support hotline is open until 6 pm.", "The support hotline now closes at 8 pm."),
        "When does the support hotline close?",
    ),
    Case(
        U, ("The default branch is master.", "The default branch was renamed to main."), "What is the default branch?"
    ),
    Case(
        U,
        ("I use a Windows laptop for work.", "I switched to a MacBook for work."),
        "What laptop does the user use for work?",
    ),
    Case(U, ("Ahmed reports to Claire.", "Ahmed now reports to Jun after the reorg."), "Who does Ahmed report to?"),
    Case(
        U,
        ("The conference is in Lisbon this year.", "The conference was relocated to Madrid."),
        "Where is the conference?",
    ),
    Case(U, ("The cat eats dry food twice a day.", "The vet put the cat on wet food only."), "What does the cat eat?"),
    Case(
        U,
        (
            "Our cloud bill is about 8,000 dollars a month.",
            "Our cloud bill dropped to about 5,500 dollars a month after the cleanup.",
        ),
        "How much is the cloud bill?",
    ),
    Case(
        U,
        ("I'm learning Spanish.", "I gave up Spanish and am learning Japanese instead."),
        "Which language is the user learning?",
    ),
    # -- chains ---------------------------------------------------------------------------------------------------
    Case(
        C,
        ("The sprint is two weeks long.", "Sprints were extended to three weeks.", "Sprints are now four weeks long."),
        "How long is a sprint?",
    ),
    Case(
        C,
        ("Mia lives in Boston.", "Mia moved to Chicago.", "Mia moved again, this time to Denver."),
        "Where does Mia live?",
    ),
    Case(
        C,
        ("The Pro plan costs 20 dollars.", "The Pro plan went up to 25 dollars.", "The Pro plan now costs 30 dollars."),
        "How much does the Pro plan cost?",
    ),
    Case(
        C,
        ("Ben is the on-call engineer.", "Priya took over on-call from Ben.", "Diego is on call now, replacing Priya."),
        "Who is on call?",
    ),
    # -- restatements ---------------------------------------------------------------------------------------------
    Case(R, ("I work at KPMG.", "My employer is KPMG."), "Where does the user work?"),
    Case(R, ("The nightly backup runs at 4 am.", "Backups happen every night at 4 am."), "When does the backup run?"),
    Case(R, ("We deploy with GitHub Actions.", "Deployments go through GitHub Actions."), "What do we deploy with?"),
    Case(R, ("Sofia got married in June.", "Sofia's wedding was in June."), "When did Sofia get married?"),
    Case(
        R,
        ("The gym membership costs 52 dollars a month.", "I pay 52 dollars monthly for the gym."),
        "How much is the gym?",
    ),
    Case(R, ("Ahmed reports to Jun.", "Jun is Ahmed's manager."), "Who is Ahmed's manager?"),
    Case(R, ("Mia lives in Denver.", "Mia's home is in Denver, Colorado."), "Where does Mia live?"),
    # -- unrelated ------------------------------------------------------------------------------------------------
    Case(N, ("Our standup is at 9:15 every morning.", "Our retro is at 4 pm on Fridays."), "When is the retro?"),
    Case(N, ("My phone number is 555-0142.", "My office extension is 2231."), "What is my office extension?"),
    Case(
        N,
        ("The staging database runs on Postgres 13.", "The production database runs on Postgres 15."),
        "Which Postgres version does production run?",
    ),
    Case(
        N,
        ("Lena is the product owner for the mobile app.", "Raj is the product owner for the web app."),
        "Who owns the web app?",
    ),
    Case(
        N,
        ("The gym membership costs 45 dollars a month.", "The swimming pool costs 30 dollars a month."),
        "How much is the pool?",
    ),
    Case(N, ("Tom's daughter is in year 3.", "Tom's son is in year 6."), "Which year is Tom's son in?"),
    Case(N, ("I take the 7:40 train to work.", "I take the 17:50 train home."), "Which train does the user take home?"),
    # -- weaker sources -------------------------------------------------------------------------------------------
    Case(
        W,
        ("I work at KPMG.", "The user probably works at EY now."),
        "Where does the user work?",
        ("told-by-user", "model-generated"),
    ),
    Case(
        W,
        ("The nightly backup runs at 4 am.", "The nightly backup seems to run at midnight."),
        "When does the nightly backup run?",
        ("tool-result", "inference"),
    ),
    Case(
        W,
        ("Mia lives in Denver.", "Mia moved to Austin."),
        "Where does Mia live?",
        ("direct-observation", "model-generated"),
    ),
    Case(
        W,
        ("We deploy with GitHub Actions.", "Deployments were probably switched to CircleCI."),
        "What do we deploy with?",
        ("told-by-user", "inference"),
    ),
)
