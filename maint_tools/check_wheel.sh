#!/usr/bin/env bash
# The wheel runs the app anywhere (issue 27): build the sdist and the wheel (the wheel from the
# sdist, as `python -m build` does), check them with twine, install the wheel into a fresh
# virtual environment in an empty temporary folder (the dependencies pinned by the checkout's
# constraints.txt) and there, away from the checkout:
#   * import cbviz, and check it is the installed copy;
#   * `cbviz app` until Streamlit's /_stcore/health answers "ok";
#   * `cbviz serve --workers 1` until the proxy (nginx) answers the same health check.
# Prints the wheel's size and the install time.  Any failure stops the script with a message
# and a non-zero exit code.  Needs python3 with the `build` and `twine` packages (the `test`
# extra) and nginx; run from anywhere: bash maint_tools/check_wheel.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d -t cbviz-wheel-XXXXXX)
pids=()

fail() { echo "check_wheel: FAILED: $*" >&2; exit 1; }

cleanup() {
  for pid in "${pids[@]}"; do   # the process groups this script started, and only those
    kill -TERM -- "-$pid" 2>/dev/null || true
  done
  sleep 1
  for pid in "${pids[@]}"; do
    kill -KILL -- "-$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

echo "check_wheel: building the sdist and the wheel"
"$python" -m build --outdir "$work/dist" "$root" > "$work/build.log" 2>&1 \
  || { tail -n 40 "$work/build.log" >&2; fail "python -m build"; }
wheel=$(ls "$work"/dist/*.whl)
ls "$work"/dist/*.tar.gz > /dev/null || fail "no sdist was built"
"$python" -m twine check --strict "$work"/dist/* || fail "twine check"

# the wheel holds the app: its entry script, pages, Streamlit configuration, nginx template,
# the favicon and the example CSV file the sidebar offers
listing=$("$python" -m zipfile -l "$wheel")
for file in cbviz/app/streamlit_app.py cbviz/app/.streamlit/config.toml \
            cbviz/app/nginx.conf.template cbviz/app/app_pages/lessons.py \
            cbviz/app/app_pages/step_through.py cbviz/ui/assets/icon.png \
            cbviz/ui/assets/example.csv; do
  grep -qE "^$file[[:space:]]" <<< "$listing" || fail "$file is not in the wheel"
done

empty="$work/empty"   # nothing of the checkout here: not its files, not its path
mkdir "$empty"
cd "$empty"
unset PYTHONPATH
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
now() { "$python" -c 'import time; print(time.time())'; }
start=$(now)
"$venv_python" -m pip install --quiet -c "$root/constraints.txt" "$wheel" \
  || fail "pip install of the wheel"
install_seconds=$("$python" -c "print(f'{$(now) - $start:.1f}')")

"$venv_python" - "$work/venv" <<'EOF' || fail "import cbviz from the installed wheel"
import sys
from pathlib import Path

import cbviz
import cbviz.app

where = Path(cbviz.__file__).resolve()
assert Path(sys.argv[1]).resolve() in where.parents, f"cbviz imported from {where}"
for path in (cbviz.app.ENTRY, cbviz.app.CONFIG, cbviz.app.NGINX_TEMPLATE, cbviz.app.PAGES):
    assert path.exists(), f"{path} is missing from the installed package"
print(f"check_wheel: cbviz {cbviz.__version__} imported from {where.parent}")
EOF

free_port() { "$venv_python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# health URL: prints what URL/_stcore/health answers (nothing when it does not answer)
health() {
  "$venv_python" -c 'import sys, urllib.request
with urllib.request.urlopen(sys.argv[1] + "/_stcore/health", timeout=2) as answer:
    print(answer.read().decode().strip())' "$1" 2>/dev/null || true
}

# wait_healthy URL PID SECONDS: until URL/_stcore/health answers "ok"; fails when PID ends
wait_healthy() {
  local url=$1 pid=$2 deadline=$(( $(date +%s) + $3 ))
  until [ "$(health "$url")" = "ok" ]; do
    kill -0 "$pid" 2>/dev/null || return 1
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}

# stop PID: SIGTERM to its process group, then wait for it
stop() {
  kill -TERM -- "-$1" 2>/dev/null || true
  for _ in $(seq 60); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.5; done
  fail "process $1 did not stop within 30 s of SIGTERM"
}

# answers SECONDS PORT_OPTION COMMAND...: start `cbviz COMMAND... PORT_OPTION <free port>` in
# its own process group, wait until that port answers the health check, then stop it
answers() {
  local seconds=$1 port_option=$2 name=$3 port pid
  shift 2
  port=$(free_port)
  setsid "$work/venv/bin/cbviz" "$@" "$port_option" "$port" > "$work/$name.log" 2>&1 &
  pid=$!
  pids+=("$pid")
  wait_healthy "http://127.0.0.1:$port" "$pid" "$seconds" \
    || { tail -n 40 "$work/$name.log" >&2; fail "cbviz $* did not answer its health check"; }
  echo "check_wheel: cbviz $* answered the health check on port $port"
  stop "$pid"
}

answers 120 --server.port app --server.headless true   # Streamlit on its own
answers 180 --port serve --workers 1 --host 127.0.0.1   # nginx in front of one worker

size=$(stat -c %s "$wheel")
echo "check_wheel: $(basename "$wheel"): $size bytes ($(( (size + 512) / 1024 )) KiB);" \
     "installed with its dependencies in a fresh venv in $install_seconds s"
echo "check_wheel: passed"
