"""A free TCP port on loopback, for the helpers that cannot be told to pick their own (chromedriver,
the archive stand-in)."""
import socket


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
