"""Pure rules, no I/O: confidence, argument checks, filters, ownership, conflict and update detection,
keyword terms and fusion, lineage, causal links, and the prompts an LLM is asked."""
