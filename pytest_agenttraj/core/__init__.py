"""The matching core: trajectory values, normalisation of every input form, matching and graph
paths. Pure and stdlib-only (langchain-core is recognised, never imported); it never imports
pytest or anything above it."""
