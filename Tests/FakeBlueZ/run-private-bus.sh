#!/usr/bin/env bash
# Runs griptrack's fake BlueZ (fake_bluez.py, a python3-dbusmock template) on a private dbus-daemon.
#
#   run-private-bus.sh [-p JSON] -- CMD [ARGS...]
#       Starts a private bus and the fake, runs CMD with DBUS_SYSTEM_BUS_ADDRESS pointing at that bus, tears
#       everything down and exits with CMD's status. Example:
#           Tests/FakeBlueZ/run-private-bus.sh -- sh -c 'busctl --address=$DBUS_SYSTEM_BUS_ADDRESS tree org.bluez'
#
#   run-private-bus.sh [-p JSON] --serve
#       For test drivers. Prints `DBUS_SYSTEM_BUS_ADDRESS=<address>` then `READY <fake pid>`, then reads commands
#       from stdin, one per line, and answers each on stdout:
#           kill            SIGKILL the fake (a bluetoothd crash)             -> KILLED
#           start [JSON]    start the fake again (JSON = template parameters) -> READY <pid>
#           restart [JSON]  kill + start                                      -> READY <pid>
#           quit, or EOF    tear down bus and fake and exit
#
# JSON: template parameters, see fake_bluez.py. Env: FAKE_BLUEZ_NOTIFICATIONS (notification file),
# FAKE_BLUEZ_LOG (where the fake's call log goes, default /dev/null), PYTHON (default /usr/bin/python3; it needs
# Debian's python3-dbusmock, python3-dbus and python3-gi).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
template="$here/fake_bluez.py"
python="${PYTHON:-/usr/bin/python3}"
log="${FAKE_BLUEZ_LOG:-/dev/null}"
params='{}'
mode=""
while [ $# -gt 0 ]; do
    case "$1" in
        -p) params="$2"; shift 2 ;;
        --serve) mode=serve; shift ;;
        --) mode=run; shift; break ;;
        *) echo "usage: $0 [-p JSON] (--serve | -- CMD [ARGS...])" >&2; exit 2 ;;
    esac
done
[ -n "$mode" ] || { echo "usage: $0 [-p JSON] (--serve | -- CMD [ARGS...])" >&2; exit 2; }

if ! "$python" -c 'import dbusmock, dbus, gi' 2>/dev/null; then
    echo "run-private-bus.sh: $python cannot import dbusmock/dbus/gi; apt-get install python3-dbusmock python3-gi" >&2
    exit 3
fi

bus_pid=""
fake_pid=""

cleanup() {
    if [ -n "$fake_pid" ]; then kill -KILL "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; fi
    if [ -n "$bus_pid" ]; then kill -KILL "$bus_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# Both servers carry GRIPTRACK_TEST_SERVER in their environment: scripts/test-watchdog finds any left running by it.
# A private bus: line 1 = address, line 2 = pid (docs/bluez.md §6).
{ read -r address; read -r bus_pid; } < <(GRIPTRACK_TEST_SERVER=fake-bluez-bus dbus-daemon --session --print-address=1 --print-pid=1 --fork --nopidfile)
export DBUS_SYSTEM_BUS_ADDRESS="$address"

start_fake() {
    local p="${1:-$params}"
    # The fake must not inherit our stdout: test drivers read it.
    GRIPTRACK_TEST_SERVER=fake-bluez DBUS_SYSTEM_BUS_ADDRESS="$address" "$python" -m dbusmock --system -t "$template" -p "$p" >>"$log" 2>&1 </dev/null &
    fake_pid=$!
    if ! DBUS_SESSION_BUS_ADDRESS="$address" gdbus wait --session --timeout 10 org.bluez; then
        echo "run-private-bus.sh: the fake did not claim org.bluez within 10 s (log: $log)" >&2
        exit 4
    fi
}

kill_fake() {
    if [ -n "$fake_pid" ]; then
        kill -KILL "$fake_pid" 2>/dev/null || true
        wait "$fake_pid" 2>/dev/null || true
        fake_pid=""
    fi
}

start_fake "$params"

if [ "$mode" = run ]; then
    set +e
    "$@"
    status=$?
    exit $status
fi

echo "DBUS_SYSTEM_BUS_ADDRESS=$address"
echo "READY $fake_pid"
while IFS= read -r line; do
    command="${line%% *}"
    argument=""
    [ "$command" != "$line" ] && argument="${line#* }"
    case "$command" in
        kill) kill_fake; echo "KILLED" ;;
        start) kill_fake; start_fake "${argument:-$params}"; echo "READY $fake_pid" ;;
        restart) kill_fake; start_fake "${argument:-$params}"; echo "READY $fake_pid" ;;
        quit) break ;;
        "") ;;
        *) echo "ERROR unknown command: $command" ;;
    esac
done
