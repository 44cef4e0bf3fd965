"""Content research agents (spec §4.4, §4.5): CRUD, runs, read-time lists, legacy aliases."""
