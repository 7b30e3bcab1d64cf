"""test_rooms_page_drawing.py's map with tiles: a stand-in tile server on loopback (every tile the same small PNG,
each path counted), a second `proteinar serve --tile-server` pointing at it, and a browser opening
#/map there: Leaflet draws the map with tiles from the server's own origin (/tiles/…), which asked
the stand-in once per tile; the page keeps to its Content-Security-Policy."""
import base64
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from proteinar_testing.server import ServerProcess

# A 1 × 1 PNG (grey), the same bytes for every tile.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGO4c+cOAATSAmnWVdK7AAAAAElFTkSuQmCC")


class TileStandIn:
    """Answers /t/{z}/{x}/{y}.png with PNG and counts each path asked for."""

    def __init__(self):
        self.asked = []
        stand = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                stand.asked.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(PNG)))
                self.end_headers()
                self.wfile.write(PNG)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


def run(check, binary, browser):
    tiles = TileStandIn()
    server = ServerProcess(binary, name="tiles", extra=["--tile-server", tiles.url + "/t/{z}/{x}/{y}.png"])
    try:
        browser.go(server.url + "/?tiles#/map")
        drawn = browser.wait("""const t = [...document.querySelectorAll('#map-canvas img.leaflet-tile-loaded')];
            return !document.getElementById('map-canvas').hidden && t.length > 0 && t.every((i) => i.src.startsWith(location.origin + '/tiles/'))
              && [t.length, document.querySelector('.leaflet-control-attribution')?.textContent]""", 40)
        repeated = len(tiles.asked) - len(set(tiles.asked))
        check("with --tile-server the map is drawn: Leaflet's tiles come from this server's /tiles/ (the stand-in asked once per tile), "
              "with the tile server's attribution", bool(drawn and drawn[0] > 0 and "OpenStreetMap" in (drawn[1] or "") and tiles.asked and repeated == 0),
              f"{drawn} / {len(tiles.asked)} asked, {repeated} twice")
    finally:
        server.close()
        tiles.close()
