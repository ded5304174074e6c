"""Claims: what a statement says, read from its parse, and how two of them relate."""
