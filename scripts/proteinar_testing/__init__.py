"""The tools behind the checks' fixtures (scripts/checks/conftest.py) and the benchmarks, one home each:

  paths        ROOT, FIXTURES, CHECK_MODELS, CHECK_USDZ, DECODE_QR, START_POSTGRES
  venv         require(script, modules, what) / rerun_in_venv(script, what): re-run in .venv
  ports        free_port()
  server       ServerProcess(binary, work=, data_dir=, database_url=, rcsb_url=, starter=, extra=, name=):
               `proteinar serve` on a port it picks, waited for; .url .ws .pid; stop() kill() restart() close()
  http_client  http(server, method, path, body, token=, cookie=, csrf=, guest=) -> Response; fetch(url); want()
  accounts     Account(server, name), library_token(server), make_room(), add_member(), room_state(), room_log(), rid()
  archive      ArchiveStandIn(files, titles): the RCSB on loopback, for --rcsb-url
  browser      Browser(): headless Chromium over WebDriver, .csp_violations(); XR_STUB, ANDROID_UA;
               register_through_page(browser, base, name, back)
  postgres     test_url(), start(), stop(), fresh_database(tag)
  report       Fail, Skip, expect(), short(), Tally (ok/FAIL/skip lines and `N passed, M failed`),
               SoftChecks (a test's checks: each printed, the test failing at its end listing every FAIL)
  file_checkers  models(), usdz(), usd_layers(): check-models.py, check-usdz.py and check-usd-layers.py run
               once over many files, each file's verdict
  glb_reader   Bad, need(), glb_chunks(), read_accessor(), decode_meshopt(): a GLB's bytes as check-models reads them
  link_emulator  make_namespaces(), Link(down, up, rtt, limit), describe(stats), remove_namespaces(): an emulated
               4G/3G link between two network namespaces (root; TUN devices and a user-space emulator)
  phone_browser  run_browser(base, molecules, viewport, timeout): first frames in Chromium on the emulated phone

The checks that run in the browser (test_web's, test_rooms_page's and test_tour's groups) are in
scripts/checks/in_browser; the attacks in scripts/checks/attacks, the rooms' in scripts/checks/rooms.

The checks (pytest) find it through pyproject.toml's `pythonpath = ["scripts", ...]`; the benchmarks
import scripts/benchmarks/scripts_path.py first, which puts scripts/ on sys.path:

    import scripts_path  # noqa: F401
    from proteinar_testing.server import ServerProcess

Everything here is the standard library only, so it imports before any re-run in the venv; glb_reader
alone needs numpy, so it is imported after venv.require()."""
