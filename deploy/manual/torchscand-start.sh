#!/usr/bin/env bash
# torchscand without systemd (a container without an init, WSL, a machine booted another
# way): the user, folders, socket group and configuration of deploy/systemd/, made by hand,
# then the daemon started in the background as that user. As root:
#
#   deploy/manual/torchscand-start.sh [--bin DIR] [--config FILE] [--user NAME] [--group NAME]
#                                     [--state-dir DIR] [--run-dir DIR] [--log FILE]
#   deploy/manual/torchscand-start.sh --stop [--run-dir DIR]
#
# Defaults are the systemd unit's: programs in /usr/local/bin (scripts/install.sh), the
# configuration /etc/torchscan/torchscand.json (installed from deploy/systemd/torchscand.json
# when missing), user torchscan, group torchscan-users (who may submit), state in
# /var/lib/torchscand, socket and pid file in /run/torchscand, log /var/log/torchscand.log.
# The flags --state-dir, --run-dir and --group override the configuration's state_dir,
# listen and socket_group. Starting twice is refused while the first daemon runs; --stop sends
# it SIGTERM (a running job is recorded as interrupted) and waits for it to exit.
# Afterwards: `usermod -aG torchscan-users alice`, and alice (in a new login) runs
#   torchscan-client --daemon unix:/run/torchscand/torchscand.sock info
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)

bin=/usr/local/bin config=/etc/torchscan/torchscand.json user=torchscan group=torchscan-users
state_dir=/var/lib/torchscand run_dir=/run/torchscand log=/var/log/torchscand.log stop=0
usage() { sed -n '6,7p' "$0" | sed 's/^#   //' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    --user) user=$2; shift 2 ;;
    --group) group=$2; shift 2 ;;
    --state-dir) state_dir=$2; shift 2 ;;
    --run-dir) run_dir=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --stop) stop=1; shift ;;
    *) echo "torchscand-start: unknown argument '$1'" >&2; usage ;;
  esac
done
pid_file=$run_dir/torchscand.pid
socket=$run_dir/torchscand.sock
running() { [[ -f "$pid_file" ]] && kill -0 "$(cat "$pid_file")" 2>/dev/null; }

if [[ $stop == 1 ]]; then
  if ! running; then echo "torchscand-start: no torchscand running from $pid_file"; exit 0; fi
  pid=$(cat "$pid_file")
  kill -TERM "$pid"
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then echo "torchscand-start: torchscand (pid $pid) still runs after 30 s" >&2; exit 1; fi
  rm -f "$pid_file"
  echo "torchscand-start: stopped torchscand (pid $pid)"
  exit 0
fi

if [[ $(id -u) != 0 ]]; then
  echo "torchscand-start: run as root (it creates the user $user and the daemon's folders)" >&2
  exit 2
fi
if [[ ! -x "$bin/torchscand" ]]; then
  echo "torchscand-start: $bin/torchscand not found; install the programs first: scripts/install.sh /usr/local" >&2
  exit 2
fi
if running; then
  echo "torchscand-start: torchscand already runs (pid $(cat "$pid_file")); stop it with $0 --stop" >&2
  exit 1
fi

# The users of deploy/systemd/torchscand.sysusers.
getent group "$group" >/dev/null || groupadd --system "$group"
if ! id "$user" >/dev/null 2>&1; then
  useradd --system --user-group --home-dir "$state_dir" --shell /usr/sbin/nologin --groups "$group" "$user"
else
  usermod -aG "$group" "$user"
fi
# The folders of the unit's StateDirectory (0750) and RuntimeDirectory (0755).
install -d -m 0750 -o "$user" -g "$user" "$state_dir"
install -d -m 0755 -o "$user" -g "$user" "$run_dir"
[[ -f "$config" ]] || install -D -m 0644 "$here/deploy/systemd/torchscand.json" "$config"
touch "$log" && chown "$user:$user" "$log" && chmod 0640 "$log"

# The unit's UMask; the daemon itself checks the configuration and exits 2, naming the field.
umask 0027
setpriv --reuid="$user" --regid="$user" --init-groups --inh-caps=-all --no-new-privs \
  "$bin/torchscand" --config "$config" --state-dir "$state_dir" --listen "unix:$socket" \
  --socket-group "$group" >>"$log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$pid_file"
for _ in $(seq 300); do
  [[ -S "$socket" ]] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$pid_file"
    echo "torchscand-start: torchscand exited at start; its log $log ends:" >&2
    tail -n 5 "$log" >&2
    exit 1
  fi
  sleep 0.1
done
if [[ ! -S "$socket" ]]; then
  echo "torchscand-start: no socket at $socket after 30 s; see $log" >&2
  exit 1
fi
echo "torchscand-start: torchscand runs as $user (pid $pid), socket $socket, log $log"
echo "torchscand-start: let people submit with: usermod -aG $group NAME (then a new login);"
echo "  torchscan-client --daemon unix:$socket info"
