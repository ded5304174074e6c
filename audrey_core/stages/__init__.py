"""The pipeline stages (encode, recall, validate, consolidate, decay, rollback), each a set of functions over one
StageContext, and the background worker and scheduler that run them off the caller's path."""
