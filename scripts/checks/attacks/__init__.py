"""The attacks of scripts/checks/check-attacks.py, a module per group (docs/security.md)."""
