#!/bin/sh
# dashboard-shots.sh: make the dashboard screenshots in docs/ the README
# shows, with loupe itself: an agent session with two tabs of a task, a
# write waiting for approval and an unknown outcome, and the dashboard
# opened in a session of its own at 1280 and 390 pixels wide. Needs
# python3 (it serves the agent's pages) and a built bin/loupe.
set -eu
cd "$(dirname "$0")/.."
LOUPE=${LOUPE:-bin/loupe}
export LOUPE_HOME=$(mktemp -d /tmp/lp-shots-XXXXXX)
site=$(mktemp -d)
cat > "$site/shop.html" <<'HTML'
<!doctype html><meta charset="utf-8"><title>Checkout</title><style>body{font:16px system-ui;margin:40px}</style>
<h1>Checkout</h1><p>1 × Field notebook — 12.00 €</p><button>Pay 12.00 €</button>
HTML
cat > "$site/notes.html" <<'HTML'
<!doctype html><meta charset="utf-8"><title>Notes</title><style>body{font:16px system-ui;margin:40px}textarea{width:90%;height:300px}</style>
<h1>Research notes</h1><textarea aria-label="Notes" oninput="count.textContent = this.value.length + ' characters'"></textarea><p id="count"></p>
HTML
python3 -m http.server 0 --bind 127.0.0.1 --directory "$site" > "$site/log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; "$LOUPE" daemon stop >/dev/null 2>&1 || true; rm -rf "$site" "$LOUPE_HOME"' EXIT
port=""
while [ -z "$port" ]; do # the server prints its port once it listens
  port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$site/log" | head -1)
done
base=http://127.0.0.1:$port
agent() { "$LOUPE" --session work --task research "$@"; }
agent open "$base/notes.html" >/dev/null
agent tab new "$base/shop.html" >/dev/null
"$LOUPE" policy set click ask --origin "$base" >/dev/null
agent --op-id pay-1 click 'role=button[name="Pay 12.00 €"]' >/dev/null 2>&1 &
agent tab activate s1 >/dev/null
agent --op-id notes-1 type 'role=textbox[name="Notes"]' "$(printf 'x%.0s' $(seq 1 3000))" >/dev/null 2>&1 &
typing=$!
"$LOUPE" --session work wait --text characters --timeout 30s >/dev/null
"$LOUPE" --session work takeover s1 >/dev/null
wait $typing || true
url=$("$LOUPE" dashboard | head -1)
dash() { "$LOUPE" --session dash "$@"; }
dash viewport 1280x860 >/dev/null
dash open "$url" >/dev/null
dash wait --target 'role=button[name="Watch s2 of work: Checkout"]' >/dev/null
dash click 'role=button[name="Watch s2 of work: Checkout"]' >/dev/null
dash wait --target 'role=image[name="Live view of the tab"]' >/dev/null
dash screenshot --full -o docs/dashboard-1280.png
dash viewport 390x844 >/dev/null
dash wait --target 'role=image[name="Live view of the tab"]' >/dev/null
dash screenshot --full -o docs/dashboard-390.png
"$LOUPE" approvals | head -3
