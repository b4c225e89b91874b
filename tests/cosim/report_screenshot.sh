#!/usr/bin/env bash
# The regression report renders in a browser: run the self-test suite, open report.html in headless
# Chromium, check the DOM has one row per job and the screenshot shows pass and fail cells.
#   report_screenshot.sh AXREGRESS SUITE OUTDIR
set -euo pipefail
axregress=$1 suite=$2 out=$3
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "report_screenshot: chromium is not installed (scripts/setup-deps installs it)" >&2
  exit 1
fi
rm -rf "$out"
"$axregress" "$suite" --out "$out/run" --no-progress-line >"$out.log" 2>&1 || true  # one job fails on purpose
html="$out/run/report.html"
[ -f "$html" ] || { echo "no report written; see $out.log" >&2; exit 1; }
flags=(--headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$out/profile")
timeout 60 "$browser" "${flags[@]}" --dump-dom "file://$html" >"$out/dom.html" 2>/dev/null
timeout 60 "$browser" "${flags[@]}" --window-size=1100,500 --screenshot="$out/report.png" "file://$html" >/dev/null 2>&1
python3 - "$out/dom.html" "$out/report.png" <<'PY'
import re, struct, sys, zlib
dom = open(sys.argv[1]).read()
rows = len(re.findall(r"<tr><td>", dom))
assert rows == 5, f"expected 5 job rows in the rendered DOM, found {rows}"
assert "3 passed, 1 failed" in dom, "summary line missing from the rendered page"
data = open(sys.argv[2], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "screenshot is not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
    if kind == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT": idat += body
assert depth == 8 and ctype in (2, 6), f"unexpected PNG format depth={depth} type={ctype}"
bpp = 3 if ctype == 2 else 4
raw, stride, prev, counts = zlib.decompress(idat), w * bpp, bytearray(w * bpp), {}
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = tuple(line[x:x + 3]); counts[px] = counts.get(px, 0) + 1
    prev = line
green, red = counts.get((0xd7, 0xf5, 0xd7), 0), counts.get((0xf8, 0xd0, 0xd0), 0)
print(f"screenshot {w}x{h}: {green} pass-cell pixels, {red} fail-cell pixels, {len(counts)} colours")
assert green > 500 and red > 200, "the status cells did not render"
PY
echo "report_screenshot: ok ($out/report.png)"
