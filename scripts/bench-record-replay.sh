#!/usr/bin/env bash
# Record-then-replay fidelity: a real static site (python-jinja2-doc's HTML documentation, served by
# nginx under docs.test and static.test) is recorded with `netbench record`, then loaded by a browser
# (--client chromium, the default, or firefox) through `netbench shell PROFILE` with `run --server`,
# alternately from the original nginx and from netbench's replay (`netbench serve` of the recording, same
# certificate), RUNS times each, interleaved. Prints, per transport: requests per load, whether every
# resource had the same bytes from both servers, and median PLT and LCP from each with their ratio.
#
#   scripts/bench-record-replay.sh [--profile 4G] [--runs 5] [--transports h1,h2] [--client chromium|firefox]
#                                  [--no-think-time] [--serve-args "ARGS"] [--gzip | --gzip-static]
#                                  [--notebook FILE]
# --no-think-time records with `netbench record --no-think-time` (the replay waits no recorded server time).
# --serve-args passes ARGS to the replay's `netbench serve` (default "--tls-records 16k --late-binding off", the
# original server's own HTTP/2 sending: nginx's default ssl_buffer_size of 16 KB records, and no TCP_NOTSENT_LOWAT,
# so what nginx wrote into the kernel's send buffer goes first and priorities order only the rest; "" for
# serve's defaults: dynamic records and 16 KiB of late binding, as h2o sends).
# --gzip turns nginx's gzip on for HTML, CSS and JavaScript (level 1, its default): the recording replays
# those bodies gzip-encoded, as recorded (record's default), so "same bytes" compares compressed bodies.
# --gzip-static serves the same bodies compressed ahead of time instead: a copy of the site with the
# origin rewrite already applied (no sub_filter) and each HTML, CSS and JavaScript file beside its
# `gzip -1` (nginx's level), served by `gzip_static on` (no compression, no filter while serving).
#
# nginx speaks TLS 1.3 as the replay does (`ssl_protocols TLSv1.2 TLSv1.3`, nginx's default from 1.23.4; Debian's
# 1.22 defaults to TLS 1.2, whose full handshake costs Firefox, which does no False Start, a round trip more per
# connection: replay ÷ original 0.92–0.94 for Firefox over 4G before, 2026-11-29).
# nginx here (Debian's 1.22) has no HTTP/3, so only h1 and h2 compare. Needs root (the shell's
# namespaces), nginx, Chromium (or Firefox) and python-jinja2-doc (scripts/bootstrap.sh --test).
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE
cd "$(dirname "$0")/.."
# nginx writes 16 KB TLS records (its ssl_buffer_size default) and sets no TCP_NOTSENT_LOWAT: the replay does
# the same unless told otherwise.
profile=4G runs=5 transports=h1,h2 think="" serve_args="--tls-records 16k --late-binding off" gzip="gzip off;"
static=0 client=chromium
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --transports) transports=$2; shift 2 ;;
    --client) client=$2; shift 2 ;;
    --no-think-time) think=--no-think-time; shift ;;
    --serve-args) serve_args=$2; shift 2 ;;
    --gzip) gzip="gzip on; gzip_types text/css application/javascript text/javascript;"; shift ;;
    --gzip-static) static=1; gzip="gzip off; gzip_static on;"; shift ;;
    *) echo "usage: $0 [--profile P] [--runs N] [--transports h1,h2] [--client chromium|firefox]" \
         "[--no-think-time] [--serve-args ARGS] [--gzip | --gzip-static] [--notebook FILE]" >&2
       exit 64 ;;
  esac
done
site=/usr/share/doc/python-jinja2-doc/html
[ -f "$site/index.html" ] || { echo "$0: $site missing (scripts/bootstrap.sh --test)" >&2; exit 77; }
netbench=${NETBENCH:-.build/release/netbench}
[ -x "$netbench" ] || netbench=.build/debug/netbench
work=$(mktemp -d /tmp/netbench-record-replay.XXXXXX)
pids=()
# KEEP=DIR: the recording, configurations and every run's results are copied to DIR before they go.
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$work"/. "$KEEP"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=lib/peers.sh
. scripts/lib/peers.sh

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=docs.test \
  -addext "subjectAltName=DNS:docs.test,DNS:static.test" -addext "basicConstraints=critical,CA:FALSE" \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
port=$(free_port)
rewrite="sub_filter_once off;
    sub_filter 'src=\"_static/' 'src=\"https://static.test:$port/_static/';
    sub_filter 'href=\"_static/' 'href=\"https://static.test:$port/_static/';"
if [ "$static" = 1 ]; then
  cp -rL "$site" "$work/site"
  site=$work/site
  find "$site" -name '*.html' -exec sed -i -e "s#src=\"_static/#src=\"https://static.test:$port/_static/#g" \
    -e "s#href=\"_static/#href=\"https://static.test:$port/_static/#g" {} +
  # Each FILE.gz as nginx's own gzip writes it (level 1, its window rule for a known length, no file
  # name or time in the header), fetched once from an nginx with gzip on; what it left uncompressed, none.
  gz_port=$(free_port)
  cat > "$work/gz.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/gz.pid;
error_log $work/gz-error.log;
events { worker_connections 64; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  gzip on; gzip_types text/css application/javascript text/javascript;
  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work; uwsgi_temp_path $work;
  scgi_temp_path $work;
  server { listen 127.0.0.1:$gz_port; root $site; }
}
CONF
  nginx -c "$work/gz.conf" -p "$work" > "$work/gz.out" 2>&1 &
  gz_pid=$!
  pids+=("$gz_pid")
  wait_listening "$gz_port" nginx
  (cd "$site" && find . \( -name '*.html' -o -name '*.css' -o -name '*.js' \) -print) > "$work/gz.list"
  while read -r f; do
    curl -sf -H 'Accept-Encoding: gzip' -o "$work/body" "http://127.0.0.1:$gz_port/${f#./}"
    if [ "$(head -c 2 "$work/body" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then mv "$work/body" "$site/$f.gz"; fi
  done < "$work/gz.list"
  kill "$gz_pid"
  wait "$gz_pid" 2>/dev/null || true
  rewrite=""
fi
cat > "$work/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  $gzip
  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work; uwsgi_temp_path $work;
  scgi_temp_path $work;
  server {
    listen 127.0.0.1:$port ssl http2;
    server_name docs.test static.test;
    ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    root $site;
    $rewrite
  }
}
CONF
nginx -c "$work/nginx.conf" -p "$work" > "$work/nginx.out" 2>&1 &
pids+=($!)
wait_listening "$port" nginx

"$netbench" record "https://docs.test:$port/index.html" --resolve docs.test=127.0.0.1 \
  --resolve static.test=127.0.0.1 --insecure $think -o "$work/rec" > "$work/record.out"
scenario="$work/rec/docs.test-$port-index.html.json"
replay=$(free_port)
# shellcheck disable=SC2086 # --serve-args is a list of words
"$netbench" serve "$scenario" -t h1,h2,h3 -l "127.0.0.1:$replay" --cert "$work/cert.pem" --key "$work/key.pem" \
  $serve_args > "$work/serve.out" 2>&1 &
pids+=($!)
wait_listening "$replay" "netbench serve"

load_before=$(uptime)
# One shell session: the same emulated link for both servers, loads alternating.
cat > "$work/loads.sh" <<LOADS

for i in \$(seq $runs); do
  for who in original:$port replay:$replay; do
    "$netbench" run "$scenario" --server "\$NETBENCH_HOST:\${who#*:}" --ca "$work/cert.pem" --client $client \
      -t "$transports" --runs 1 --out "$work/\${who%%:*}-\$i" > "$work/\${who%%:*}-\$i.out" 2>&1 || true
  done
done
LOADS
"$netbench" shell "$profile" -- sh "$work/loads.sh" 2> "$work/shell.err"
load_after=$(uptime)

python3 - "$work" "$runs" "$profile" "$load_before" "$load_after" "$client" > "$work/table.md" <<'PY'
import json, statistics, sys
work, runs, (profile, before, after, client) = sys.argv[1], int(sys.argv[2]), sys.argv[3:7]
rows = {}
for who in ("original", "replay"):
    for i in range(1, runs + 1):
        for r in json.load(open(f"{work}/{who}-{i}/results.json"))["runs"]:
            d = rows.setdefault(r["transport"], {}).setdefault(who, [])
            d.append(r)
print(f"profile {profile}, {runs} loads per server and transport, interleaved; {client} through netbench shell\n")
print("| transport | requests original / replay | same bytes per resource | median PLT ms original / replay (ratio) "
      "| median LCP ms original / replay (ratio) | failed runs |")
print("|---|---|---|---|---|---|")
def med(rs, key):
    v = [r["metrics"].get(key) for r in rs if r["status"] == "ok" and r["metrics"].get(key) is not None]
    return statistics.median(v) if v else None
for t, d in sorted(rows.items()):
    o, p = d.get("original", []), d.get("replay", [])
    req = lambda rs: sorted({len(r["requests"]) for r in rs if r["status"] == "ok"})
    sizes = lambda rs: {frozenset((q["id"], q["bytes"]) for q in r["requests"]) for r in rs if r["status"] == "ok"}
    same = "yes" if sizes(o) and sizes(o) == sizes(p) and len(sizes(o)) == 1 else "no"
    def cell(key):
        a, b = med(o, key), med(p, key)
        if a is None or b is None: return "unknown"
        return f"{a:.0f} / {b:.0f} ({b / a:.3f})"
    failed = sum(r["status"] != "ok" for r in o + p)
    print(f"| {t} | {req(o)} / {req(p)} | {same} | {cell('pltMs')} | {cell('largestContentfulPaintMs')} | {failed} |")
print(f"\nload before: {before.strip()}\nload after: {after.strip()}")
PY
echo "replay server: netbench serve ${serve_args:-with its defaults}; original: nginx $(nginx -v 2>&1 | sed "s/.*nginx\///")" \
  "($gzip ssl_protocols TLSv1.2 TLSv1.3;)"
grep -E "bodies|gzip" "$work/record.out" || true
cat "$work/table.md"
