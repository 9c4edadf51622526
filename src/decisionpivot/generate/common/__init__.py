"""Helpers shared by every family: seeding, invented names, wording, formatting, domains."""
