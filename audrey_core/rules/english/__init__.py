"""The offline English rules: an optional layer (``ValidationConfig(offline_rules=False)`` turns it off) that reads
sentence shapes when no LLM judges. What it finds may rank and flag (a dispute, a context-dependent pair, a
restatement), never hide a memory, with one exception: :mod:`.past_values`, a newer statement that names the value
it replaces as past. conflict (a changed value, a negation, the same frame), quantities (values in one unit),
qualifiers (the context a claim holds in), judge (the verdict they give together)."""
