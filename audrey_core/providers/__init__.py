"""Providers: embedders and LLMs (the local model, OpenAI-compatible servers) and the registry that finds them."""
