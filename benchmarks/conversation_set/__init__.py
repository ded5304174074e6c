"""Our own conversation set for recall on conversations (issue 32): multi-session chats between two friends with
labelled evidence turns and questions of five kinds (a single fact, a list spread over sessions, time, order, a fact
that changed), generated from templates by a seeded script, written in LoCoMo's format (``generate.py``). Part of it
is blind: conversations from other seeds, with phrasings no development conversation uses (``topics.py`` marks them),
run only to check a change, never to choose one."""
