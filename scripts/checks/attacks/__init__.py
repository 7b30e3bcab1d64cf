"""The attacks of scripts/checks/test_attacks.py, a module per group (docs/security.md)."""
