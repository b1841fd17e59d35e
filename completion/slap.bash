# bash completion for slap: its options, their values and its subcommands.
# Installed by cmake --install as share/bash-completion/completions/slap; the integration test
# completion_matches_help checks these lists against slap --help and slap's own choices.

_slap_options="--servers --threads --concurrency --conn_sock --execute_number --time --cfg_cmd
--win_size --fixed_size --verify --division --stat_freq --exp_verify --overwrite --reconnect
--reconnect_every --reconnect_rate --udp --facebook --binary --tps --rep_write --verbose --key_size --value_size --ratio --mix --exp_time
--distribution --hash --key_dist --key_pattern --key_min --key_max --ycsb --protocol --tls --tls_ca --tls_cert --tls_key --tls_skip_verify
--tls_version --auth --timeout --udp_timeout --flush --preload --arrival --pipeline --latency --timestamps --priority --warmup
--percentiles --precision --hdr_out --sweep --step_time --ramp --rounds --json --label --csv --svg --hlog --samples --sample_rate
--start_at --share --probe --max_errors --quiet --trace --trace_speed --trace_limit --trace_skip_bad --trace_spread
--trace_value_max --stats_servers --proxy_stats --metrics --control --push --store --help --version"

# The values of each option that takes one of a few words.
_slap_choices() {
    case "$1" in
    --protocol) echo "ascii binary meta" ;;
    --distribution) echo "modula ketama ketama-libmemcached" ;;
    --trace_spread) echo "client round-robin" ;;
    --hash) echo "default md5 crc fnv1_64 fnv1a_64 fnv1_32 fnv1a_32 hsieh murmur jenkins murmur3" ;;
    --arrival) echo "uniform poisson exponential etc" ;;
    --latency) echo "both corrected uncorrected" ;;
    --timestamps) echo "read kernel" ;;
    --priority) echo "normal realtime" ;;
    --key_dist) echo "uniform zipf latest gaussian" ;;
    --ycsb) echo "a b c d f" ;;
    --tls_version) echo "1.2 1.3" ;;
    esac
}

# Options whose value is a file name.
_slap_file_options="--cfg_cmd --tls_ca --tls_cert --tls_key --auth --hdr_out --json --csv --svg --hlog --samples
--trace -F -o"

_slap() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=""
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    if [[ $cur == --*=* ]]; then # --name=value: complete the value
        prev=${cur%%=*}
        cur=${cur#*=}
    elif [[ $cur == "=" ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
        cur=""
    elif [[ $prev == "=" ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    prev=${prev//-/_}
    prev=--${prev#__}
    [[ ${COMP_WORDS[COMP_CWORD - 1]} == -[Fo] ]] && prev=${COMP_WORDS[COMP_CWORD - 1]}
    local choices
    choices=$(_slap_choices "$prev")
    if [[ -n $choices ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
        return
    fi
    if [[ " ${_slap_file_options//$'\n'/ } " == *" $prev "* ]]; then
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
    fi
    local subcommand=${COMP_WORDS[1]:-}
    if [[ $subcommand == trace-stats ]] && ((COMP_CWORD > 1)); then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "--trace-skip-bad --exact-keys --help" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        fi
        return
    fi
    if [[ $subcommand == history ]] && ((COMP_CWORD > 1)); then
        case $prev in
        --kind) mapfile -t COMPREPLY < <(compgen -W "run rounds sweep search merge groups compare" -- "$cur") ;;
        --figure) mapfile -t COMPREPLY < <(compgen -W "tps p50 p90 p99 p99.9 errors capacity all" -- "$cur") ;;
        --store | --json | --csv | --svg) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
        *)
            if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "--store --label --servers --host --kind --since
                    --until --figure --fail-if --min-segment --min-change --json --csv --svg --run
                    --import --prune --before --help" -- "$cur")
            else
                mapfile -t COMPREPLY < <(compgen -f -X '!*.json' -- "$cur"; compgen -d -- "$cur")
            fi
            ;;
        esac
        return
    fi
    if [[ $subcommand == memslap ]] && ((COMP_CWORD > 1)); then
        mapfile -t COMPREPLY < <(compgen -W "--servers --concurrency --execute-number --test
            --initial-load --flush --binary --udp --noreply --hash --non-blocking --tcp-nodelay
            --buffer --quiet --verbose --debug --help --version" -- "$cur")
        return
    fi
    if [[ $subcommand == merge || $subcommand == plot || $subcommand == compare ]] &&
        ((COMP_CWORD > 1)); then
        local sub_options="--json --csv --svg --hlog --store"
        [[ $subcommand == plot ]] && sub_options="-o --samples"
        [[ $subcommand == compare ]] && sub_options="--fail-if --json --live --rounds --seed --help
            $_slap_options"
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$sub_options" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -f -X '!*.json' -- "$cur"; compgen -d -- "$cur")
        fi
        return
    fi
    if [[ $subcommand == search && $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "--slo --step_time --start --max_rate --max_steps
            $_slap_options" -- "$cur")
        return
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$_slap_options" -- "$cur")
    elif ((COMP_CWORD == 1)); then
        mapfile -t COMPREPLY < <(compgen -W "merge plot compare search trace-stats history memslap" -- "$cur")
    fi
}
complete -F _slap slap
