#!/usr/bin/env bash
# Installs meshoptimizer (Debian's libmeshoptimizer-dev), the one system library the build links,
# when its header is missing. scripts/serve and scripts/test call it before building; it prints
# what is missing and how to install it by hand when it cannot.
set -euo pipefail
for dir in /usr/include /usr/local/include /opt/homebrew/include; do
  [ -f "$dir/meshoptimizer.h" ] && exit 0
done
echo "meshoptimizer is missing (the mesh simplifier the build links): installing Debian's libmeshoptimizer-dev" >&2
SUDO=()
[ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && SUDO=(sudo)
if command -v apt-get >/dev/null 2>&1 \
  && "${SUDO[@]}" apt-get update -qq \
  && DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq libmeshoptimizer-dev >/dev/null; then
  exit 0
fi
echo "could not install meshoptimizer; install it by hand (apt-get install libmeshoptimizer-dev, or brew install meshoptimizer), then run this again" >&2
exit 1
