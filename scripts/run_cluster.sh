#!/usr/bin/env bash
# scripts/run_cluster.sh -- `make run-cluster`: three mdaed instances (a, b,
# c) sharing one PostgreSQL session store, restarted when they end, behind
# HAProxy (conf/haproxy.cfg), in the foreground; Ctrl-C stops all.
#
#   HTTP (web page, POST /rpc):  http://127.0.0.1:7420/  routed by session
#   NDJSON and LSP over TCP:     127.0.0.1:7421          routed by connection
#   the instances themselves:    127.0.0.1:7431 (a), :7432 (b), :7433 (c)
#
# HAProxy passes the browser's Host (MDAE_CLUSTER_HTTP) on to the instances,
# which accept it by --allow-host (docs/security.md, "The browser boundary").
# The store: a private PostgreSQL made for the run (initdb in a temporary
# directory, listening only on a Unix socket there, removed at the end),
# unless MDAE_STORE gives the URL of an existing database
# (postgresql://user:password@host/db; store.url in docs/cluster.md).
# Any instance serves any persistent session: one that dies is restarted,
# and meanwhile the others carry its sessions on, every acknowledged edit
# included. Override the addresses with MDAE_CLUSTER_HTTP, MDAE_CLUSTER_TCP,
# MDAE_A, MDAE_B, MDAE_C. The instances log warnings and errors only
# (MDAE_LOG_LEVEL=info shows every connection, HAProxy's health checks
# included: about eighteen a second).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export MDAE_CLUSTER_HTTP=${MDAE_CLUSTER_HTTP:-127.0.0.1:7420}
export MDAE_CLUSTER_TCP=${MDAE_CLUSTER_TCP:-127.0.0.1:7421}
export MDAE_A=${MDAE_A:-127.0.0.1:7431}
export MDAE_B=${MDAE_B:-127.0.0.1:7432}
export MDAE_C=${MDAE_C:-127.0.0.1:7433}
haproxy=$(command -v haproxy || echo /usr/sbin/haproxy)
[ -x "$haproxy" ] || { echo "run-cluster: haproxy is not installed (apt-get install haproxy)" >&2; exit 1; }
declare -A pid
stopping=0
pgdir=""
pgbin=""
# Run a PostgreSQL program as the directory's owner: initdb refuses root,
# so as root it runs as `postgres` (Debian's package makes the user).
as_pg() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}
stop() {
    stopping=1
    [ "${#pid[@]}" -gt 0 ] && kill "${pid[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    if [ -n "$pgdir" ]; then
        as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true
        rm -rf "$pgdir"
        pgdir=""
    fi
}
trap 'stop; exit 0' INT TERM
trap stop EXIT
if [ -n "${MDAE_STORE:-}" ]; then
    store=$MDAE_STORE
else
    pgbin=/usr/lib/postgresql/15/bin
    [ -x "$pgbin/initdb" ] || pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] ||
        { echo "run-cluster: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
    pgdir=$(mktemp -d /tmp/mdae-cluster-pg-XXXXXX)
    [ "$(id -u)" = 0 ] && chown postgres: "$pgdir"
    as_pg "$pgbin/initdb" -D "$pgdir/data" -A trust -U mdae -E UTF8 >"$pgdir/initdb.log" 2>&1 ||
        { cat "$pgdir/initdb.log" >&2; exit 1; }
    # Only a Unix socket, in the private directory: no port to collide with.
    as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/postgres.log" -w \
        -o "-k $pgdir -c listen_addresses= -p 5432" start >/dev/null ||
        { cat "$pgdir/postgres.log" >&2; exit 1; }
    store="postgresql://mdae@/postgres?host=$pgdir"
    echo "run-cluster: PostgreSQL in $pgdir (psql '$store')"
fi
start_instance() {
    local name=$1 addr=MDAE_${1^^}
    ./"$BUILD"/server/mdaed --config conf/mdaed.json --web-root "$BUILD/web" --listen "tcp://${!addr}" \
        --instance "$name" --store "$store" --log-level "${MDAE_LOG_LEVEL:-warn}" \
        --allow-host "$MDAE_CLUSTER_HTTP" &
    pid[$name]=$!
}
start_instance a
start_instance b
start_instance c
"$haproxy" -f conf/haproxy.cfg -db &
pid[haproxy]=$!
echo "run-cluster: HAProxy on http://$MDAE_CLUSTER_HTTP/ (HTTP) and $MDAE_CLUSTER_TCP (NDJSON, LSP);" \
     "instances a=$MDAE_A b=$MDAE_B c=$MDAE_C; Ctrl-C stops them"
# A supervisor: an instance that ends (a crash, a kill) is started again
# after a second; meanwhile HAProxy sends its sessions' requests to another
# instance, which loads them from the store. HAProxy ending ends the cluster.
while [ "$stopping" = 0 ]; do
    wait -n || true
    [ "$stopping" = 0 ] || break
    if ! kill -0 "${pid[haproxy]}" 2>/dev/null; then
        echo "run-cluster: HAProxy ended; stopping the instances" >&2
        exit 1
    fi
    for name in a b c; do
        if ! kill -0 "${pid[$name]}" 2>/dev/null; then
            echo "run-cluster: instance $name ended; starting it again in 1 s" >&2
            sleep 1
            start_instance "$name"
        fi
    done
done
