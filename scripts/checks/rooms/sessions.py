"""Check 1: accounts and sessions over HTTP (tokens, cookies with CSRF, signing out)."""
import re

from proteinar_testing.accounts import PASSWORD, Account, rid
from proteinar_testing.http_client import http, want
from proteinar_testing.report import expect, short

from .context import main_server


def check_accounts():
    s = main_server()
    a = Account(s, "Ada")
    b = Account(s, "Ben")
    expect(a.id != b.id, f"two accounts got one id {a.id}")
    prof = want(http(s, "GET", "/api/profile", token=a.token), 200, "GET /api/profile with a token")
    expect(prof["account"]["email"] == a.email, f"profile: expected e-mail {a.email}, got {short(prof)}")
    token = a.sign_in(s)
    expect(token and token != a.token, "signing in again: expected a new token")
    want(http(s, "GET", "/api/profile", token=token), 200, "GET /api/profile with the new token")
    # The same words for a wrong password and an unknown e-mail.
    wrong = http(s, "POST", "/api/sessions", {"email": b.email, "password": "not the password", "kind": "token"})
    unknown = http(s, "POST", "/api/sessions", {"email": f"nobody-{rid('')}@example.org", "password": "not the password"})
    want(wrong, 401, "sign in with a wrong password")
    want(unknown, 401, "sign in with an unknown e-mail")
    expect(wrong.json and unknown.json and wrong.json.get("error") == unknown.json.get("error"),
           f"wrong password and unknown e-mail answered differently: {wrong!r} / {unknown!r}")
    expect(wrong.json.get("error") == "wrong e-mail or password", f"expected 'wrong e-mail or password', got {wrong!r}")
    dup = http(s, "POST", "/api/accounts", {"email": a.email, "password": PASSWORD, "name": "Again", "kind": "token"})
    expect(400 <= dup.status < 500, f"registering {a.email} twice: expected a 4xx, got {dup!r}")
    short_pw = http(s, "POST", "/api/accounts", {"email": f"x-{rid('')}@example.org", "password": "1234567", "name": "X"})
    expect(short_pw.status == 400, f"a 7-character password: expected 400, got {short_pw!r}")
    # Cookie sessions: CSRF on every change.
    email = f"cookie-{rid('')}@example.org"
    r = http(s, "POST", "/api/accounts", {"email": email, "password": PASSWORD, "name": "Cookie"})
    body = want(r, 201, "register with a cookie session")
    set_cookie = r.headers.get("Set-Cookie") or ""
    m = re.search(r"proteinar_session=([^;]+)", set_cookie)
    expect(m, f"register (cookie): expected Set-Cookie proteinar_session, got {set_cookie!r}")
    expect("httponly" in set_cookie.lower() and "samesite=lax" in set_cookie.lower(),
           f"the session cookie should be HttpOnly and SameSite=Lax: {set_cookie!r}")
    expect("token" not in body, f"a cookie session's answer should hold no bearer token: {short(body)}")
    cookie, csrf = f"proteinar_session={m.group(1)}", body.get("csrf")
    expect(csrf, f"register (cookie): expected a csrf value, got {short(body)}")
    sess = want(http(s, "GET", "/api/session", cookie=cookie), 200, "GET /api/session")
    expect((sess.get("account") or {}).get("email") == email and sess.get("csrf") == csrf,
           f"GET /api/session: expected the account and the same csrf, got {short(sess)}")
    no_csrf = http(s, "POST", "/api/rooms", {"name": "no csrf"}, cookie=cookie)
    want(no_csrf, 403, "POST /api/rooms by cookie without X-CSRF-Token")
    bad_csrf = http(s, "POST", "/api/rooms", {"name": "bad csrf"}, cookie=cookie, csrf="0" * len(csrf))
    want(bad_csrf, 403, "POST /api/rooms by cookie with a wrong X-CSRF-Token")
    want(http(s, "POST", "/api/rooms", {"name": "with csrf"}, cookie=cookie, csrf=csrf), 201,
         "POST /api/rooms by cookie with X-CSRF-Token")
    want(http(s, "PATCH", "/api/profile", {"name": "Cookie Two"}, cookie=cookie), 403, "PATCH /api/profile without CSRF")
    want(http(s, "PATCH", "/api/profile", {"name": "Cookie Two"}, cookie=cookie, csrf=csrf), 200, "PATCH /api/profile")
    want(http(s, "DELETE", "/api/sessions/current", cookie=cookie), 403, "sign out by cookie without CSRF")
    out = http(s, "DELETE", "/api/sessions/current", cookie=cookie, csrf=csrf)
    want(out, 204, "sign out (cookie)")
    cleared = out.headers.get("Set-Cookie") or ""
    expect("proteinar_session=" in cleared and ("max-age=0" in cleared.lower() or "expires=" in cleared.lower()),
           f"sign out: expected the cookie cleared, got Set-Cookie {cleared!r}")
    after = want(http(s, "GET", "/api/session", cookie=cookie), 200, "GET /api/session after signing out")
    expect(after.get("account") is None, f"after signing out the old cookie still signs in: {short(after)}")
    want(http(s, "GET", "/api/profile", cookie=cookie), 401, "GET /api/profile with the ended cookie")
    # Signing out a bearer token ends it too.
    want(http(s, "DELETE", "/api/sessions/current", token=token), 204, "sign out (token)")
    want(http(s, "GET", "/api/profile", token=token), 401, "GET /api/profile with a signed-out token")
    want(http(s, "GET", "/api/profile", token=a.token), 200, "the other session of the same account stays")
    want(http(s, "GET", "/api/profile"), 401, "GET /api/profile signed out")
