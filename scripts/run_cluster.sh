#!/usr/bin/env bash
# scripts/run_cluster.sh -- `make run-cluster`: two mdaed instances (a, b), restarted when they end,
# behind HAProxy (conf/haproxy.cfg), in the foreground; Ctrl-C stops all.
#
#   HTTP (web page, POST /rpc):  http://127.0.0.1:7420/  routed by session
#   NDJSON and LSP over TCP:     127.0.0.1:7421          routed by connection
#   the instances themselves:    127.0.0.1:7431 (a), 127.0.0.1:7432 (b)
#
# HAProxy passes the browser's Host (MDAE_CLUSTER_HTTP) on to the instances,
# which accept it by --allow-host (docs/security.md, "The browser boundary").
# Each instance keeps its persistent sessions in its own state directory
# ($XDG_STATE_HOME/mdae/cluster-a, ...-b). Override the addresses with
# MDAE_CLUSTER_HTTP, MDAE_CLUSTER_TCP, MDAE_A, MDAE_B.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export MDAE_CLUSTER_HTTP=${MDAE_CLUSTER_HTTP:-127.0.0.1:7420}
export MDAE_CLUSTER_TCP=${MDAE_CLUSTER_TCP:-127.0.0.1:7421}
export MDAE_A=${MDAE_A:-127.0.0.1:7431}
export MDAE_B=${MDAE_B:-127.0.0.1:7432}
state=${XDG_STATE_HOME:-$HOME/.local/state}/mdae
haproxy=$(command -v haproxy || echo /usr/sbin/haproxy)
[ -x "$haproxy" ] || { echo "run-cluster: haproxy is not installed (apt-get install haproxy)" >&2; exit 1; }
declare -A pid
stopping=0
stop() {
    stopping=1
    kill "${pid[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap 'stop; exit 0' INT TERM
trap stop EXIT
start_instance() {
    local name=$1 addr=MDAE_${1^^}
    ./"$BUILD"/server/mdaed --config conf/mdaed.json --web-root "$BUILD/web" --listen "tcp://${!addr}" \
        --instance "$name" --state-dir "$state/cluster-$name" --allow-host "$MDAE_CLUSTER_HTTP" &
    pid[$name]=$!
}
start_instance a
start_instance b
"$haproxy" -f conf/haproxy.cfg -db &
pid[haproxy]=$!
echo "run-cluster: HAProxy on http://$MDAE_CLUSTER_HTTP/ (HTTP) and $MDAE_CLUSTER_TCP (NDJSON, LSP);" \
     "instances a=$MDAE_A b=$MDAE_B; Ctrl-C stops them"
# A supervisor: an instance that ends (a crash, a kill) is started again after
# a second, on its own state directory, so its persistent sessions come back;
# meanwhile HAProxy sends its sessions' requests a 503 and the other
# instance serves on. HAProxy ending ends the cluster.
while [ "$stopping" = 0 ]; do
    wait -n || true
    [ "$stopping" = 0 ] || break
    if ! kill -0 "${pid[haproxy]}" 2>/dev/null; then
        echo "run-cluster: HAProxy ended; stopping the instances" >&2
        exit 1
    fi
    for name in a b; do
        if ! kill -0 "${pid[$name]}" 2>/dev/null; then
            echo "run-cluster: instance $name ended; starting it again in 1 s" >&2
            sleep 1
            start_instance "$name"
        fi
    done
done
