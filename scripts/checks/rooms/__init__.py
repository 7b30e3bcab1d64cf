"""The checks of scripts/checks/test_rooms.py, a module per group, and what they share: the live
WebSocket client (live.py), the room's state rebuilt from operations (ops.py), and the run's
settings, servers and tally (context.py)."""
