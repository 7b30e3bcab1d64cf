"""14. Behind a TLS proxy everyone is one address (issue 29, finding 12). A server started with
`--trusted-proxy 127.0.0.60`: registrations (password hashes, 60 a minute per address) sent through
the "proxy" for one client (X-Forwarded-For 203.0.113.7) run out at that client's budget, while
another client through the same proxy still registers; the same header from a peer that is not a
trusted proxy is ignored (its own address's budget counts); and the proxy's connections are not
held to --connections-per-address."""
import concurrent.futures
import socket
import time

from proteinar_testing import attack_tools as tools
from proteinar_testing.accounts import rid

PROXY = "127.0.0.60"
STRANGER = "127.0.0.61"
BUDGET = 60            # --bcrypt-per-minute
PER_ADDRESS = 8        # --connections-per-address for this server: the proxy opens more


def register(server, source, forwarded):
    body = {"email": f"{rid()}@example.org", "password": "correct horse battery", "kind": "token"}
    return tools.try_request(server, "POST", "/api/accounts", body=body, source=source,
                             headers={"X-Forwarded-For": forwarded}, timeout=60).status


def flood(server, source, forwarded, count):
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda _: register(server, source, forwarded), range(count)))


def check_proxy(a):
    s = a.serve(extra=["--trusted-proxy", PROXY, "--connections-per-address", str(PER_ADDRESS)], name="attack14")
    one = flood(s, PROXY, "203.0.113.7", BUDGET + 5)
    other = register(s, PROXY, "203.0.113.8")
    a.figure(f"{BUDGET + 5} registrations through the proxy for 203.0.113.7: {tools.status_counts(one)}; then one for 203.0.113.8: {other}",
             table=f"via proxy: client A {one.count(201)}× 201 then 429, client B {other}")
    a.check(f"one client behind the proxy runs out of its own budget ({BUDGET} a minute): 429s",
            one.count(429) >= 1 and one.count(201) <= BUDGET + 2, tools.status_counts(one))
    a.check("another client behind the same proxy still registers (201)", other == 201, f"HTTP {other}")
    spoofed = flood(s, STRANGER, "198.51.100.1", BUDGET + 5)
    again = register(s, STRANGER, "198.51.100.99")
    a.figure(f"{BUDGET + 5} registrations from {STRANGER} (not a trusted proxy) with made-up X-Forwarded-For: "
             f"{tools.status_counts(spoofed)}; then another made-up address: {again}")
    a.check("X-Forwarded-For from a peer that is not a trusted proxy is ignored: its own address's budget holds (429)",
            spoofed.count(429) >= 1 and again == 429, f"{tools.status_counts(spoofed)}; then {again}")
    # The proxy holds many clients' connections: more than --connections-per-address stay open.
    socks = []
    try:
        for _ in range(PER_ADDRESS * 3):
            c = socket.socket()
            c.bind((PROXY, 0))
            c.connect(("127.0.0.1", s.port))
            socks.append(c)
        time.sleep(0.3)
        r = tools.try_request(s, "GET", "/healthz", source=PROXY, timeout=10)
        a.check(f"the proxy's connections are not held to --connections-per-address ({PER_ADDRESS}): "
                f"with {len(socks)} open, one more is answered 200", r.status == 200, f"HTTP {r.status} {tools.message(r)}")
    finally:
        for c in socks:
            c.close()
