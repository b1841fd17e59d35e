# Sourced by the scripts: start and stop a throwaway memcached on a free loopback port.
# memcached_start [memcached options...] sets MC_PID and MC_PORT; memcached_stop ends it by pid.

memcached_start() {
    local user=() attempt
    [ "$(id -u)" -eq 0 ] && user=(-u root)
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        MC_PORT=$((20000 + RANDOM % 40000))
        (exec 3<>"/dev/tcp/127.0.0.1/$MC_PORT") 2>/dev/null && continue # taken
        memcached -l 127.0.0.1 -p "$MC_PORT" -U 0 "${user[@]}" "$@" &
        MC_PID=$!
        for _ in $(seq 50); do
            (exec 3<>"/dev/tcp/127.0.0.1/$MC_PORT") 2>/dev/null && return 0
            kill -0 "$MC_PID" 2>/dev/null || break
            sleep 0.1
        done
        memcached_stop
    done
    echo "could not start memcached on a free loopback port" >&2
    return 1
}

memcached_stop() {
    if [ -n "${MC_PID:-}" ]; then
        kill "$MC_PID" 2>/dev/null && wait "$MC_PID" 2>/dev/null
        MC_PID=""
    fi
    return 0
}
