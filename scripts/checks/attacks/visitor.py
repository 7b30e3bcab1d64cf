"""Another visitor beside an attack: their ordinary, uncached model (1AKE) while the attacker works
must come in under 2 s, and the server must be idle again within 5 s of the attacker leaving
(issue 29's acceptance, for the attacks that cost CPU)."""
import threading
import time

from proteinar_testing import attack_tools as tools

VISITOR = "127.0.0.81"
ORDINARY = "/api/molecules/1AKE/model.glb?size={size}"
ORDINARY_LIMIT_S = 2.0
IDLE_CPU_S = 0.5          # CPU seconds over the 5 s from 5 s after the attacker left (a tenth of a core)


def ordinary_model_during(s, size, attack, after=0.5):
    """Runs `attack()` while, `after` s in, another visitor asks for 1AKE's uncached model: its
    answer, and what `attack()` returned."""
    out = {}

    def visitor():
        time.sleep(after)
        out["r"] = tools.try_request(s, "GET", ORDINARY.format(size=size), source=VISITOR, timeout=120)

    t = threading.Thread(target=visitor)
    t.start()
    result = attack()
    t.join()
    return out["r"], result


def idle_after(a, s, what):
    """The server's CPU over the 10 s after the attacker left: a check that seconds 5-10 are idle."""
    profile = tools.cpu_profile(s.pid, 10.0)
    first, last = sum(profile[:10]), sum(profile[10:])
    a.figure(f"{what}: server CPU in the 5 s after the attacker left {first:.1f} s, in the 5 s after that {last:.2f} s")
    a.check(f"{what}: the server is idle again within 5 s of the attacker leaving (CPU over seconds 5-10 under {IDLE_CPU_S} s)",
            last < IDLE_CPU_S, f"{last:.2f} CPU seconds")
    return last
