"""The parts of scripts/benchmarks/benchmark-rooms.py: the WebSocket clients (clients.py, one
process holds whole rooms), what is measured on the machine (measure.py), and the summary (report.py)."""
