#!/usr/bin/env bash
# Run the lab in a real X window (Xvfb) and save a screenshot to look at.
#   tools/screenshot.sh OUT.png [SECONDS] [-- COMMAND ...]
# Default command: .venv/bin/python main.py --clean. SECONDS (default 8): how long it may draw.
# SCREEN=1280x800x24 tools/screenshot.sh docs/x.png    # a laptop on a projector
# Installs Xvfb, the two xcb libraries Qt needs (Qt's error names libxcb-cursor0, but the missing
# ones are libxcb-icccm4 and libxcb-keysyms1) and ImageMagick's `import` on first use (Debian).
set -u
out=${1:?usage: tools/screenshot.sh OUT.png [SECONDS] [-- COMMAND ...]}; shift
wait_s=8
if [ $# -gt 0 ] && [ "$1" != "--" ]; then wait_s=$1; shift; fi
[ "${1:-}" = "--" ] && shift
if [ $# -eq 0 ]; then
  py=python3; [ -x .venv/bin/python ] && py=.venv/bin/python
  set -- "$py" main.py --clean
fi
if ! command -v xvfb-run >/dev/null || ! command -v import >/dev/null || ! ldconfig -p | grep -q libxcb-icccm.so.4; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends xvfb xauth libxcb-icccm4 libxcb-keysyms1 imagemagick \
    >/dev/null || { echo "could not install xvfb / imagemagick"; exit 1; }
fi
log=$(mktemp)
env -u QT_QPA_PLATFORM xvfb-run -a -s "-screen 0 ${SCREEN:-1600x1000x24}" bash -c '
  "$@" >"'"$log"'" 2>&1 & app=$!
  sleep '"$wait_s"'
  if ! kill -0 $app 2>/dev/null; then echo "the app exited before the screenshot:"; tail -20 "'"$log"'"; exit 1; fi
  import -window root "'"$out"'"; kill $app 2>/dev/null; wait $app 2>/dev/null; exit 0' _ "$@"
rc=$?
[ $rc -eq 0 ] && echo "saved $out"
grep -q Traceback "$log" && { echo "the app printed a traceback:"; grep -A8 Traceback "$log" | head -20; }
rm -f "$log"
exit $rc
