"""Long working chats: a user and an assistant working on one project over many weeks, in long turns of several
sentences, where a fact of the project changes (the database, the deploy target, the release date ...).

Each chat has 36-44 sessions a few days apart, of 6-8 turns that alternate user and assistant, each turn three to
six sentences of ordinary work talk. Into some of the user's turns, among those sentences, goes a fact of the project
(``old``); weeks later, another user turn, among other sentences, says it changed (``new``), in the words people use:
with a cue ("we switched to"), with the old value named ("from X to Y"), or with none ("The release is now on the
14th" / "The release is on the 14th"). A third of the time the assistant's next turn repeats the old value, as
assistants do. The question asks for the current value without saying "now"; its evidence is the newer turn, and the
turns holding the older value are ``stale``.

The format is LoCoMo's (``benchmarks.locomo`` reads it), with ``kind`` ("update") and ``stale`` on each question.
Two splits with their own facts: ``dev`` (tuned on) and ``held-out`` (run once, when the work is done).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from .generate import LOCOMO_TIME


@dataclass(frozen=True)
class Change:
    """A fact of the project told once, and its change told later."""

    old: str
    new: str
    question: str
    echo: str  # the assistant repeating the old value


DEV = (
    Change("We're running everything on PostgreSQL 14 for now.",
           "We moved the main database over to MySQL 8 last weekend.",
           "Which database does the project run on?", "PostgreSQL 14 should handle that load without trouble."),
    Change("The API is deployed on Heroku.", "The API is deployed on Fly.io these days.",
           "Where is the API deployed?", "Heroku's review apps would make that easy to test."),
    Change("The public launch is planned for March 3.", "The public launch slipped from March 3 to April 14.",
           "When is the public launch?", "March 3 leaves about five weeks for the beta."),
    Change("Dana is the tech lead on the payments work.", "Omar took over as tech lead on payments after Dana left.",
           "Who is the tech lead on the payments work?", "Dana will want to review the refund flow then."),
    Change("Our monthly cloud budget is 4,000 dollars.", "Finance cut the cloud budget to 2,500 dollars a month.",
           "What is the monthly cloud budget?", "With 4,000 dollars a month you can keep two staging environments."),
    Change("The frontend is written in Vue 2.", "We rewrote the frontend in React over the summer.",
           "What is the frontend written in?", "Vue 2 reaches its end of life soon, keep that in mind."),
    Change("The staging site lives at staging.acme.dev.", "The staging site is at preview.acme.dev.",
           "What is the address of the staging site?", "I'll point the smoke tests at staging.acme.dev."),
    Change("We use Jenkins for CI.", "CI runs on GitHub Actions since we dropped Jenkins.",
           "Which CI system does the team use?", "A Jenkins pipeline can run those checks in parallel."),
    Change("The mobile app supports iOS 15 and up.", "The mobile app now requires iOS 16 or later.",
           "Which iOS versions does the mobile app support?", "Supporting iOS 15 means no Live Activities for now."),
    Change("Our weekly planning meeting is on Mondays at 10.", "Planning moved to Tuesdays at 2 in the afternoon.",
           "When is the weekly planning meeting?", "Monday at 10 is a good slot to review the board."),
    Change("The API rate limit for partners is 100 requests per minute.",
           "Partners get 300 requests per minute on the API since the new plan.",
           "What is the partner rate limit on the API?", "At 100 requests per minute they will need to batch calls."),
    Change("The team is five engineers right now.", "We hired two more, so the team is seven engineers.",
           "How many engineers are on the team?", "Five engineers is tight for two workstreams."),
    Change("Error tracking goes to Sentry.", "We replaced Sentry with Rollbar for error tracking.",
           "Which tool does error tracking go to?", "Sentry's release tracking will tie errors to deploys."),
    Change("The backend is on Python 3.9.", "We upgraded the backend to Python 3.12.",
           "Which Python version is the backend on?",
           "Python 3.9 does not have the new union syntax, so use Optional."),
    Change("Customer data is hosted in the Frankfurt region.", "Customer data now lives in the Dublin region.",
           "Which region hosts customer data?", "Frankfurt keeps the data inside the EU, which legal wanted."),
    Change("Code freeze for the release is on the 20th.", "Code freeze got pulled forward to the 16th.",
           "When is the code freeze for the release?", "The 20th gives QA a full week before the release."),
    Change("Our design system is built with Storybook 6.", "The design system is on Storybook 8.",
           "Which version of Storybook is the design system on?", "Storybook 6 needs the webpack builder for that."),
    Change("Invoices are generated with a cron job at midnight.",
           "Invoices are generated by a queue worker as orders close.",
           "How are invoices generated?", "A midnight cron keeps the invoice run out of peak hours."),
    Change("The search feature is powered by Elasticsearch.", "Search is powered by Typesense after the migration.",
           "What powers the search feature?", "Elasticsearch's analyzers can handle the German compounds."),
    Change("Sprints are two weeks long.", "We went to one-week sprints this quarter.",
           "How long are the sprints?", "Two weeks gives room for the bigger refactors."),
    Change("The support inbox is handled by Priya.", "Leo handles the support inbox these days.",
           "Who handles the support inbox?", "Priya can triage the bug reports from the inbox then."),
    Change("Our analytics run on Google Analytics.", "Analytics moved to Plausible in the spring.",
           "Which analytics tool does the project use?", "Google Analytics can track those funnels with events."),
    Change("The nightly backup is kept for 7 days.", "Nightly backups are kept for 30 days after the audit.",
           "How long is the nightly backup kept?", "Seven days of backups should cover a bad deploy."),
    Change("We're on the Starter plan of our email provider.", "We upgraded the email provider to the Growth plan.",
           "Which plan of the email provider is the project on?", "The Starter plan caps sends at 10,000 a month."),
)  # fmt: skip

HELD_OUT = (
    Change("The container images are built for amd64 only.",
           "The container images are built for arm64 as well as amd64.",
           "Which architectures are the container images built for?", "Amd64-only images keep the builds fast."),
    Change("The data warehouse is Redshift.", "The data warehouse moved to BigQuery.",
           "Which data warehouse does the team use?", "Redshift's sort keys will help those reports."),
    Change("Releases go out every Thursday.", "Releases go out on Wednesdays since the on-call change.",
           "Which day do releases go out?", "A Thursday release leaves Friday for fixes."),
    Change("The product manager for onboarding is Keiko.", "Mateo is the product manager for onboarding.",
           "Who is the product manager for onboarding?", "Keiko should sign off on the new welcome screens."),
    Change("Session tokens expire after 24 hours.", "Session tokens expire after 8 hours since the security review.",
           "When do session tokens expire?", "With 24-hour tokens the refresh flow can wait."),
    Change("We deploy with Ansible playbooks.", "Deploys run through Terraform and Helm now.",
           "How does the team deploy?", "The Ansible playbooks can roll back that change too."),
    Change("The mobile team has three developers.", "The mobile team is down to two developers.",
           "How many developers are on the mobile team?", "Three developers can split iOS and Android work."),
    Change("The docs site is built with Docusaurus.", "The docs site is built with MkDocs.",
           "What is the docs site built with?", "Docusaurus versioning will keep the old API docs online."),
    Change("Our office is in the Riverside building.", "We moved the office to the Harbour building in June.",
           "Where is the team's office?", "The Riverside building has those meeting rooms you liked."),
    Change("The free trial lasts 14 days.", "The free trial was extended from 14 to 30 days.",
           "How long does the free trial last?", "Fourteen days is enough to import a first project."),
    Change("Logs are shipped to Datadog.", "Logs are shipped to Grafana Loki since we cancelled Datadog.",
           "Where are the logs shipped?", "Datadog's log pipelines can parse those JSON lines."),
    Change("The beta has 40 customers.", "The beta has grown to 120 customers.",
           "How many customers are in the beta?", "Forty customers is a good size for interviews."),
    Change("Payments are processed by Stripe.", "Payments are processed by Adyen since the enterprise deal.",
           "Who processes payments?", "Stripe's test clocks will help with the renewal cases."),
    Change("Our on-call rotation is weekly.", "On-call rotates every three days.",
           "How often does the on-call rotation change?", "A weekly rotation gives people time to settle in."),
    Change("The main branch is called master.", "We renamed the main branch to main.",
           "What is the main branch called?", "I'll open the pull request against master."),
    Change("The ML model is retrained every month.", "The model gets retrained every week now.",
           "How often is the ML model retrained?", "Monthly retraining should keep up with that drift."),
)  # fmt: skip

USER_TALK = (
    "Can you take a look at the failing test in the checkout module?",
    "I spent most of the morning in meetings, so I'm only starting now.",
    "The pull request for the new settings page is up for review.",
    "Could you draft a short note for the changelog?",
    "I think the flaky test is a timing issue in the fixtures.",
    "Let's keep the scope small for this iteration.",
    "The customer call went fine, they mostly asked about exports.",
    "I'd like the error messages to be friendlier.",
    "Please remind me to update the onboarding checklist.",
    "We had a short outage yesterday evening, it's resolved.",
    "The designer sent new mockups for the dashboard.",
    "I'm not sure the caching layer is worth it yet.",
    "Can you write a migration that adds an index on the orders table?",
    "The load test showed p95 latency around 180 milliseconds.",
    "I want to clean up the feature flags that are fully rolled out.",
    "Our QA person found two bugs in the signup flow.",
    "Let's add a retry with backoff around the webhook calls.",
    "The marketing team wants a banner for the webinar.",
    "I'll be out on Friday, so plan around that.",
    "Can you explain how the job scheduler picks the next task?",
    "The CSV export times out for large accounts.",
    "We should document the environment variables somewhere.",
    "I refactored the notification service last night.",
    "The legal team asked about our data retention policy.",
    "Could you suggest names for the new admin role?",
    "Half the team is at a conference this week.",
    "The accessibility audit flagged the colour contrast on buttons.",
    "I want a script that seeds the local database with sample data.",
    "The dependency update broke two snapshot tests.",
    "Let's pair on the permissions model tomorrow.",
    "The logs are noisy, let's lower the level for the health checks.",
    "Our biggest customer asked for single sign-on.",
    "I merged the fix for the timezone bug.",
    "Can you review the SQL for the monthly report?",
    "The new hire starts next week and needs a starter task.",
    "We need to rotate the API keys before the audit.",
    "The upload limit confuses users, they keep hitting it.",
    "I'd rather not add another service for this.",
    "Could you turn these notes into a short design doc?",
    "The sales team keeps asking for a roadmap slide.",
)

ASSISTANT_TALK = (
    "Sure, I can help with that.",
    "Here is a first version you can adjust.",
    "The failing test expects the old response shape, so update the fixture.",
    "A small, reversible change is the safer way to start.",
    "I would add a test that reproduces the bug before fixing it.",
    "That sounds reasonable given the deadline.",
    "One option is to move the work into a background job.",
    "You could guard the new code path behind a feature flag.",
    "The index should make that query much faster on large tables.",
    "Let me know if you want me to go deeper on any part.",
    "I'd start by measuring where the time goes.",
    "Retries with exponential backoff and jitter usually work well for webhooks.",
    "The changelog note could say that exports are now faster for big accounts.",
    "Keeping the error messages short and specific helps users fix the problem.",
    "A seed script can read the sample data from a JSON file.",
    "For the permissions model, roles with explicit grants are easier to audit.",
    "The timezone bug came from comparing naive and aware datetimes.",
    "Rotating the keys is easier if the services read them from the secret store.",
    "A starter task that touches the whole stack helps a new hire find their way.",
    "The contrast issue can be fixed in the design tokens in one place.",
    "Snapshot tests break often on dependency updates; review the diffs before accepting them.",
    "You might document the variables in a table in the README.",
    "The scheduler takes the oldest task whose dependencies have finished.",
    "Streaming the CSV in chunks would avoid the timeout.",
    "Single sign-on usually means SAML for enterprise customers.",
    "I can outline the design doc with goals, non-goals and open questions.",
    "Lowering the log level for health checks will cut most of the noise.",
    "A roadmap slide with three horizons is usually enough for sales.",
    "Good catch, that would have caused a race.",
    "I'll keep the answer brief.",
)


def _turn(rng: random.Random, pool: tuple[str, ...], planted: str | None = None) -> str:
    """Three to six sentences of ``pool``, with ``planted`` among them (never first: people lead with something
    else as often as not)."""
    sentences = rng.sample(pool, rng.randint(3, 6))
    if planted is not None:
        sentences.insert(rng.randint(1, len(sentences)), planted)
    return " ".join(sentences)


def chat(seed: int, split: str, changes: tuple[Change, ...]) -> dict:
    """One working chat (a LoCoMo sample with kinds) holding ``changes``, the same for the same seed and split."""
    rng = random.Random(f"working-{split}-{seed}")
    sessions = rng.randint(36, 44)
    plants: dict[int, list[tuple[str, Change, bool]]] = {}
    for change in changes:
        old_at, new_at = rng.randrange(sessions // 3), rng.randrange(sessions // 2, sessions)
        plants.setdefault(old_at, []).append(("old", change, rng.random() < 1 / 3))
        plants.setdefault(new_at, []).append(("new", change, False))
    conversation: dict = {"speaker_a": "user", "speaker_b": "assistant"}
    evidence: dict[tuple[str, str], list[str]] = {}
    when = datetime(2024, 1, 8, 9) + timedelta(days=rng.randrange(300))
    for number in range(1, sessions + 1):
        exchanges = rng.randint(3, 4)
        planted = plants.get(number - 1, [])
        at = {rng.randrange(exchanges): p for p in planted}  # each planted fact in a user turn of its own exchange
        while len(at) < len(planted):
            exchanges += 1
            at = {i: p for i, p in enumerate(planted)}
        turns: list[dict] = []
        for exchange in range(exchanges):
            kind, change, echo = at.get(exchange, (None, None, False))
            fact = None if change is None else change.old if kind == "old" else change.new
            turn_id = f"D{number}:{len(turns) + 1}"
            turns.append({"speaker": "user", "dia_id": turn_id, "text": _turn(rng, USER_TALK, fact)})
            if change is not None:
                evidence.setdefault((change.question, str(kind)), []).append(turn_id)
            reply_id = f"D{number}:{len(turns) + 1}"
            turns.append({"speaker": "assistant", "dia_id": reply_id,
                          "text": _turn(rng, ASSISTANT_TALK, change.echo if echo and change else None)})  # fmt: skip
            if echo and change is not None:
                evidence[(change.question, "old")].append(reply_id)
        conversation[f"session_{number}"] = turns
        conversation[f"session_{number}_date_time"] = when.strftime(LOCOMO_TIME).replace("AM", "am").replace("PM", "pm")
        when += timedelta(days=rng.randint(2, 6), hours=rng.randint(-2, 2))
    qa = [
        {
            "question": change.question,
            "answer": change.new,
            "evidence": evidence[(change.question, "new")],
            "stale": evidence[(change.question, "old")],
            "category": 0,
            "kind": "update",
        }
        for change in changes
    ]
    return {"sample_id": f"working-{split}-{seed}", "conversation": conversation, "qa": qa}


SPLITS = {"dev": DEV, "held-out": HELD_OUT}
CHATS_PER_SPLIT = {"dev": 3, "held-out": 2}


def chats(split: str) -> list[dict]:
    """The split's chats: its changes dealt over ``CHATS_PER_SPLIT`` chats, eight each."""
    changes = SPLITS[split]
    count = CHATS_PER_SPLIT[split]
    return [chat(seed, split, changes[seed::count]) for seed in range(count)]
