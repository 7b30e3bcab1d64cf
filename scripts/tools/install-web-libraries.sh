#!/usr/bin/env bash
# The libraries the web app loads from Debian's packages, served by our own server at /vendor/NAME/
# (ServerConfiguration.webLibraries): libjs-leaflet (the map of rooms) and node-qrcode-generator
# (the QR code a desktop shows for a phone). Installed with apt-get when missing and possible;
# without one the page says so and offers what it can instead (a list of rooms, the address as text).
# Idempotent; run by scripts/serve and scripts/test.
set -uo pipefail
missing=()
[ -f /usr/share/javascript/leaflet/leaflet.js ] || missing+=(libjs-leaflet)
[ -f /usr/share/javascript/qrcode-generator/qrcode.js ] || missing+=(node-qrcode-generator)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-web-libraries: installing ${missing[*]} (Debian packages the web app loads from this server)" >&2
if ! { command -v apt-get >/dev/null && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
  echo "install-web-libraries: ${missing[*]} could not be installed: the map shows its list of rooms, the desktop the phone's address as text" >&2
fi
exit 0
