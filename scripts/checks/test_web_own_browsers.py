"""The web app in runs of their own, after test_web.py's flow (they share conftest.py's session
fixture `web`: its server, its binary and the Content-Security-Policy messages of every browser):
Android's WebXR and Scene Viewer, pictures, videos and AR photos, a phone's gestures and Help on
every screen, no WebGL2, installing the app and using it offline, opening any entry without an
account with a busy server's retries, and the RCSB unreachable. No page of the run may break the
Content-Security-Policy."""
import os

import pytest

from in_browser.android_ar_checks import check_android_ar
from in_browser.capture_checks import check_capture
from in_browser.gesture_help_checks import check_gestures_and_help
from in_browser.offline_checks import check_offline
from in_browser.open_any_entry_checks import check_open_any_entry
from in_browser.web_page import CANVAS
from proteinar_testing.browser import Browser, register_through_page
from proteinar_testing.ports import free_port
from proteinar_testing.server import ServerProcess

pytestmark = pytest.mark.browser


def test_android_webxr_and_scene_viewer(web, checks):
    web.main_browser_done()
    base = web.base
    check, keep_csp = checks.check, web.keep_csp
    # Android Chrome: WebXR immersive-ar with hit-test, Scene Viewer beside it.
    check_android_ar(base, check, keep_csp, CANVAS)


def test_pictures_videos_and_ar_photos_through_the_share_sheet(web, checks):
    web.main_browser_done()
    base = web.base
    check, keep_csp = checks.check, web.keep_csp
    # Pictures, videos and AR photos, saved through the share sheet or downloaded; progress said in words.
    check_capture(base, check, keep_csp)


def test_phone_gestures_help_on_every_screen_and_tap_targets(web, checks):
    web.main_browser_done()
    base = web.base
    check, keep_csp, shots = checks.check, web.keep_csp, web.shots
    # A phone-sized page with touch: twist, double tap, the style sheet, Hide hydrogens, More results,
    # Previous and Next through the library, the last molecule reopened, Help on every screen, and
    # every control named and large enough to tap.
    try:
        check_gestures_and_help(base, check, shots, keep_csp)
    except Exception as e:
        check("the phone-sized gestures and help run finished", False, repr(e))


def test_without_webgl2_the_page_says_so_and_the_rest_works(web, checks):
    web.main_browser_done()
    server, base = web.server, web.base
    check, keep_csp = checks.check, web.keep_csp
    # Without WebGL2 (a real switch of Chromium's): a message in place of the 3D view; the rest works.
    plain = None
    try:
        # proteinar.test is this machine too (the resolver rule), but not a secure context as 127.0.0.1 is.
        plain = Browser(args=["--disable-webgl", "--host-resolver-rules=MAP proteinar.test 127.0.0.1"])
        plain.go(base + "/#/explore")
        msg = plain.wait("const s = document.getElementById('status'); return s.classList.contains('error') && s.textContent", 20)
        check("without WebGL2 the page says so", bool(msg and "WebGL2" in msg), str(msg))
        plain.type_into("#search-words", "kinase\ue007")
        check("without WebGL2 the search still works", bool(plain.wait("const l = document.getElementById('search-results'); return !l.hidden && l.textContent.includes('1AKE')", 30)))
        plain.go(f"http://proteinar.test:{server.port}/")
        notice = plain.wait("const n = document.getElementById('insecure-notice'); return window.isSecureContext === false && !n.hidden && n.textContent", 20)
        check("on a page that is not secure (plain HTTP, not localhost) a notice says to ask for HTTPS",
              bool(notice and "HTTPS" in notice and "ask whoever runs this server" in notice), str(notice))
        plain.click("#insecure-dismiss")
        check("the notice about HTTPS can be dismissed", bool(plain.wait("return document.getElementById('insecure-notice').hidden", 5)))
    except Exception as e:
        check("the no-WebGL2 run finished", False, repr(e))
    finally:
        if plain:
            keep_csp(plain)
            plain.close()


def test_installing_the_app_and_using_it_offline(web, checks):
    web.main_browser_done()
    base = web.base  # the run's server stays up for the checks after this one (conftest.py closes it)
    check, csp, shots = checks.check, web.csp, web.shots
    # Installing the app and using it offline: the manifest, the service worker, an offline reload,
    # the offline banner and Keep offline, in a browser of their own at phone size.
    csp.extend(f"offline checks: {m}" for m in check_offline(
        base, check, lambda name, browser: shots and browser.screenshot(os.path.join(shots, f"web-{name}.png"))))


def test_opening_any_entry_add_to_the_library_and_a_busy_servers_retries(web, checks):
    web.main_browser_done()
    binary = web.binary
    check, keep_csp, shots = checks.check, web.keep_csp, web.shots
    # Opening any entry without an account, Add to the library, and a busy server's retries: servers of
    # their own with no starter library and a stand-in archive of their own.
    check_open_any_entry(binary, check, shots, keep_csp)


def test_the_rcsb_unreachable_clear_messages_and_the_library_still_opens(web, checks):
    web.main_browser_done()
    binary = web.binary
    check, keep_csp = checks.check, web.keep_csp
    # The RCSB unreachable: clear messages for fetch and search; the library still opens.
    offline, lone = None, None
    try:
        offline = ServerProcess(binary, rcsb_url=f"http://127.0.0.1:{free_port()}", name="web-offline")
        lone = Browser()
        # Signed in, as someone who may add what they open: what is tested is the archive being unreachable.
        check("the RCSB unreachable: registering through the sign-in page works", bool(register_through_page(lone, offline.url, "Dorothy", back="#/explore")))
        lone.wait("return !document.getElementById('view-explore').hidden")
        lone.type_into("#entry-id", "4HHB\ue007")
        err = lone.wait("const s = document.getElementById('status'); return s.classList.contains('error') && s.textContent", 60)
        check("the RCSB unreachable: Get says so", bool(err and ("reach" in err or "unavailable" in err)), str(err))
        lone.type_into("#search-words", "kinase\ue007")
        err = lone.wait("const s = document.getElementById('status'); return s.classList.contains('error') && s.textContent.includes('earch') && s.textContent", 60)
        check("the RCSB unreachable: search says so", bool(err), str(lone.js("return document.getElementById('status').textContent")))
        lone.js("document.getElementById('entry-id').value = ''")
        lone.type_into("#entry-id", "1AKE\ue007")
        check("the RCSB unreachable: a molecule of the library still opens",
              bool(lone.wait("return document.getElementById('status').textContent.startsWith('1AKE')", 90)))
    except Exception as e:
        check("the offline run finished", False, repr(e))
    finally:
        if lone:
            keep_csp(lone)
            lone.close()
        if offline: offline.close()

def test_no_page_broke_the_content_security_policy(web):
    """Console messages naming it, from every browser of the run."""
    web.main_browser_done()
    assert web.csp == [], "console messages naming the Content-Security-Policy:\n  " + "\n  ".join(web.csp[:10])
