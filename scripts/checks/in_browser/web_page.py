"""The web app's run in the browser, shared by test_web.py (the flow in one browser, its steps in
order) and test_web_own_browsers.py (runs in browsers and servers of their own): the server with
its stand-in archive, the flow's browser, and the Content-Security-Policy messages of every
browser, handed to both by conftest.py's session fixture `web`."""
import os

from flow_steps import FlowSteps
from proteinar_testing.archive import ArchiveStandIn
from proteinar_testing.browser import Browser
from proteinar_testing.paths import FIXTURES
from proteinar_testing.server import ServerProcess

# The flow in one browser, its steps in order (flow_steps.py).
MAIN_FLOW = [
    "test_landing_and_introduction_lead_to_explore",
    "test_get_1ake_draws_it_with_numbers_a_student_can_copy",
    "test_static_files_are_versioned_and_cached_for_a_year",
    "test_the_page_decodes_the_meshopt_glb",
    "test_changing_the_style_rerenders_and_the_camera_yields_a_png",
    "test_search_lists_results_controls_are_named_and_arrow_keys_redraw",
    "test_signed_out_get_of_an_entry_the_library_lacks_asks_the_archive",
    "test_the_library_signed_out_then_signed_in_upload_keep_and_delete",
    "test_an_unknown_entry_says_what_to_do_and_a_name_in_the_id_box_is_searched",
    "test_a_wide_screen_puts_the_view_beside_the_controls",
    "test_desktop_ar_explains_with_a_qr_code_a_phone_can_reach",
    "test_keyboard_alone_from_the_landing_page_to_the_camera_and_menu",
    "test_the_design_screen",
    "test_ios_ar_quick_look_links_are_usdz_that_pass_usdz_check",
]

TITLES = {"1AKE": ("STRUCTURE OF THE COMPLEX BETWEEN ADENYLATE KINASE FROM ESCHERICHIA COLI AND THE INHIBITOR AP5A", "X-RAY DIFFRACTION", 2.0, "1992-01-15")}
# The address phones reach it at (TEST-NET-1, documentation only): the desktop QR code must carry it,
# not 127.0.0.1, which every phone has as its own.
PHONE_URL = "http://192.0.2.10:8080"
# Pixels of the 3D view's middle that differ from the white background, and a hash of them.
CANVAS = """const c = document.getElementById('viewer'); if (!c.width) return null;
const t = document.createElement('canvas'); t.width = c.width; t.height = c.height; const x = t.getContext('2d'); x.drawImage(c, 0, 0);
const d = x.getImageData(c.width * .3, c.height * .3, c.width * .4, c.height * .4).data; let n = 0, h = 0;
for (let i = 0; i < d.length; i += 4) { if (d[i] < 245 || d[i+1] < 245 || d[i+2] < 245) n++; h = (h * 31 + d[i] + d[i+1] * 3 + d[i+2] * 7) | 0; }
return [n, h, d.length / 4];"""


class Web:
    """The run: its server (with the stand-in archive: 5PTI, and 1AKE's title), the flow's browser
    (made when first wanted, closed once the flow is over), and the Content-Security-Policy
    messages of every browser."""

    def __init__(self, binary, shots):
        self.binary, self.shots = binary, shots
        # Files: 5PTI (the flow opens 1AKE and 5PTI, both in the starter library too; 4HHB is in
        # neither). Entries new to the server are opened in open_any_entry_checks.py, with a stand-in
        # archive of its own.
        self.archive = ArchiveStandIn({"5PTI.cif.gz": os.path.join(FIXTURES, "5PTI.cif.gz")}, TITLES)
        self.server = ServerProcess(binary, rcsb_url=self.archive.url, name="web", extra=["--public-url", PHONE_URL])
        self.base = self.server.url
        self.csp = []    # console messages naming the Content Security Policy, from every browser of the run
        self._browser = None
        self.flow = FlowSteps(MAIN_FLOW)

    @property
    def browser(self):
        if self._browser is None:
            self._browser = Browser()
        return self._browser

    def shot(self, name):
        if not self.shots:
            return
        os.makedirs(self.shots, exist_ok=True)
        self.browser.screenshot(os.path.join(self.shots, f"web-{name}.png"))

    def keep_csp(self, browser):
        self.csp.extend(f"{browser.base}: {m}" for m in browser.csp_violations())

    def main_browser_done(self):
        """The flow is over: its browser's CSP messages kept, and it closed (the runs after it have
        browsers of their own)."""
        if self._browser is not None:
            self.keep_csp(self._browser)
            self._browser.close()
            self._browser = None
        self.flow.broken = self.flow.broken or "the flow is over (its browser closed)"

    def close(self):
        self.main_browser_done()
        self.server.close()
        self.archive.close()
