"""Facts that hold together, said in the same frame with another value: a development set for issue 43, written
after the frozen blind set and looked at while the rule "hide only on an explicit signal" was built, so its figures
are a development set's. Nothing here may leave recall."""

from __future__ import annotations

from .case import Case, K

COEXIST_DEV_CASES: tuple[Case, ...] = (
    Case(K, ("Marco has a goldfish.", "Marco has a gecko."), "What pets does Marco have?"),
    Case(K, ("The user keeps two hens.", "The user keeps three ducks."), "What birds does the user keep?"),
    Case(K, ("The user is allergic to latex.", "The user is allergic to aspirin."), "What allergies does the user have?"),
    Case(K, ("Nina cannot eat soy.", "Nina cannot eat sesame."), "What can't Nina eat?"),
    Case(K, ("The user speaks Hindi.", "The user speaks Swahili."), "What languages does the user speak?"),
    Case(K, ("Oskar is learning Arabic.", "Oskar is learning Greek."), "What is Oskar learning?"),
    Case(K, ("The user likes sailing.", "The user likes chess."), "What are the user's hobbies?"),
    Case(K, ("The user listens to podcasts about history.", "The user listens to podcasts about economics."),
         "What podcasts does the user listen to?"),
    Case(K, ("We use Kafka for order events.", "We use Kafka for audit events."), "What do we use Kafka for?"),
    Case(K, ("The team uses Figma for wireframes.", "The team uses Figma for slide decks."),
         "What does the team use Figma for?"),
    Case(K, ("Our service exposes a REST API.", "Our service exposes a gRPC API."), "Which APIs does our service expose?"),
    Case(K, ("The shop accepts Visa.", "The shop accepts Amex."), "Which cards does the shop accept?"),
    Case(K, ("Lea is the secretary of the tennis club.", "Lea is the secretary of the parents' association."),
         "Where is Lea secretary?"),
    Case(K, ("Tariq is an owner of the billing repo.", "Tariq is an owner of the auth repo."),
         "Which repos does Tariq own?"),
    Case(K, ("The team has 4 backend developers.", "The team has 3 QA engineers."),
         "How many backend developers does the team have?"),
    Case(K, ("The hotel has 80 rooms.", "The hotel has 2 restaurants."), "How many rooms does the hotel have?"),
    Case(K, ("The user's aunt lives in Oslo.", "The user's aunt lives in Bergen."), "Where do the user's aunts live?"),
    Case(K, ("Yara studies with Felix.", "Yara studies with Ingrid."), "Who does Yara study with?"),
    Case(K, ("The user runs on Mondays.", "The user swims on Mondays."), "What does the user do on Mondays?"),
    Case(K, ("The user grows tomatoes in the garden.", "The user grows basil in the garden."),
         "What does the user grow in the garden?"),
    Case(K, ("The user owns a road bike.", "The user owns a mountain bike."), "What bikes does the user own?"),
    Case(K, ("Our product is sold in Canada.", "Our product is sold in Mexico."), "Where is our product sold?"),
    Case(K, ("The user has a meeting with Sara on Friday.", "The user has a meeting with Paul on Friday."),
         "Who does the user meet on Friday?"),
    Case(K, ("The user wears glasses for reading.", "The user wears glasses for driving."),
         "When does the user wear glasses?"),
)  # fmt: skip
