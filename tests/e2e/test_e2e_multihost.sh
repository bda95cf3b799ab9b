#!/usr/bin/env bash
# Two self-play hosts on one machine (different --host names, one shared run
# directory) and a 2-rank Gloo trainer, all through launch/start.sh:
# iterations complete with both hosts acknowledging every reload before
# metadata.json; every game file names its host; one host's server is kill -9'd
# and the run goes on with that host excluded by name; restarted, it rejoins.
source "$(dirname "$0")/lib.sh"
# A free port for the ranks' TCPStore (the default 29500 would clash with another run on this machine).
STORE_PORT="$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
SETS=(--set "train.dist_store=tcp://127.0.0.1:$STORE_PORT" --set run.host_timeout_s=4 --set server.heartbeat_s=0.2 --set train.world_size=2 --set run.target_games=4
      --set run.min_games=2 --set run.stall_timeout_s=10 --set train.dist_timeout_s=30)
stop_hosts() {
  local h
  for h in hostA hostB; do "$ROOT/launch/stop.sh" --run-dir "$RUN" --host "$h" --timeout 10 >/dev/null 2>&1 || true; done
}
trap 'stop_hosts; cleanup' EXIT

for h in hostA hostB; do
  check "start.sh --role selfplay --host $h is healthy" \
    "$ROOT/launch/start.sh" --config "$CONFIG" --run-dir "$RUN" --role selfplay --host "$h" --workers 1 "${SETS[@]}"
done
check "start.sh refuses --role selfplay without --host" \
  bash -c "! '$ROOT/launch/start.sh' --config '$CONFIG' --run-dir '$RUN' --role selfplay >/dev/null 2>&1"
check "start.sh --role trainer (2 ranks) is healthy" \
  "$ROOT/launch/start.sh" --config "$CONFIG" --run-dir "$RUN" --role trainer --no-eval "${SETS[@]}"
check "the trainer's rank 1 runs" alive "$(pid_of trainer_1)"

# records_with PY-CONDITION: number of generations.jsonl records r for which the condition holds.
records_with() {
  /usr/bin/python3 - "$(run_generations)" "$1" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    h = r.get("hosts", {"acknowledged": [], "excluded": []})
    ex = [e["host"] for e in h["excluded"]]
    if eval(sys.argv[2], {"r": r, "acked": h["acknowledged"], "excluded": ex}):
        n += 1
print(n)
PY
}
at_least_records() { [ -f "$(run_generations)" ] && (($(records_with "$1") >= $2)); }
check "2 iterations complete, each acknowledged by both hosts" \
  wait_for 150 at_least_records 'acked == ["hostA", "hostB"]' 2

check "every game file names its host" /usr/bin/python3 - "$RUN" <<'PY'
import glob, os, re, sys
files = glob.glob(os.path.join(sys.argv[1], "games", "it*", "*.npz"))
bad = [f for f in files if not re.fullmatch(r"host[AB]_w\d+_g\d+\.npz", os.path.basename(f))]
hosts = {os.path.basename(f).split("_")[0] for f in files}
print(len(files), "game files from", sorted(hosts))
assert files and not bad, bad
assert hosts == {"hostA", "hostB"}, hosts
PY
check "both servers acknowledged each generation before its metadata.json was written" /usr/bin/python3 - "$RUN" <<'PY'
import re, sys
log = open(sys.argv[1] + "/logs/trainer.log").read().splitlines()
acked, published = {}, {}
for i, line in enumerate(log):
    m = re.search(r"self-play hosts serving generation (\d+): (.*) \(", line)
    if m:
        acked[int(m.group(1))] = (i, m.group(2))
    m = re.search(r"metadata published: iteration (\d+) .*model_generation (\d+)", line)
    if m:
        published[int(m.group(2))] = i
both = [g for g, (i, hosts) in acked.items() if hosts == "hostA, hostB"]
print("generations acknowledged by both:", sorted(both))
assert len(both) >= 2
for g in both:
    assert g in published and acked[g][0] < published[g], g
PY
check "status shows both hosts with their games per minute" /usr/bin/python3 -c '
import json, sys
s = json.loads(sys.argv[1])
hosts = {h["host"]: h for h in s["hosts"]}
assert set(hosts) == {"hostA", "hostB"}, hosts.keys()
for h in hosts.values():
    assert h["server"]["alive"] and h["workers_alive"] == 1 and "games_per_min" in h, h
assert s["local_selfplay"] is False, s["local_selfplay"]' "$("$ROOT/launch/status.sh" --run-dir "$RUN" --json)"
check "the dashboard's /api/status aggregates both hosts" /usr/bin/python3 - "$(json_get '["dashboard"]["port"]' <"$CONFIG")" <<'PY'
import json, sys, urllib.request
s = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/status" % sys.argv[1], timeout=10))
assert sorted(h["host"] for h in s["hosts"]) == ["hostA", "hostB"], s.get("hosts")
PY
check "status text names each host" bash -c "'$ROOT/launch/status.sh' --run-dir '$RUN' | grep -q '^host hostB: server alive'"

# kill -9 hostB's server: its worker falls back to local inference, the trainer excludes the host by name.
kill -KILL "$(HOST=hostB pid_of server)"
check "the run goes on with hostB excluded and named" \
  wait_for 120 at_least_records '"hostB" in excluded and acked == ["hostA"]' 1
check "the trainer's log names the excluded host" grep -q "self-play host hostB excluded" "$(run_log_file trainer)"

# Restarted, hostB's server catches up from metadata.json / reload.json and rejoins.
export GOMOKU_INFER_SOCK="$(HOST=hostB run_socket)"
setsid "$BIN/infer_server" --config "$CONFIG" --set "run.dir=$RUN" --set run.host=hostB "${SETS[@]}" --run-dir "$RUN" \
  --log-file "$(HOST=hostB run_log_file server)" </dev/null >>"$(HOST=hostB run_out_file server)" 2>&1 &
echo $! >"$(HOST=hostB run_pid_file server)"
unset GOMOKU_INFER_SOCK
N_BEFORE="$(records_with 'acked == ["hostA", "hostB"]')"
check "restarted, hostB rejoins: a later iteration is acknowledged by both hosts" \
  wait_for 120 at_least_records 'acked == ["hostA", "hostB"]' $((N_BEFORE + 1))
check "the trainer noticed hostB again" grep -q "self-play host hostB is heard again" "$(run_log_file trainer)"
finish
