#!/usr/bin/env python3
"""Integration tests of slap against a real memcached started on a free loopback port.

Usage: run.py --list | --list-shared
       run.py --slap PATH [--memcached PATH] [--lmc-check PATH] [--man PATH] [--readme PATH] CASE

The cases are the case_* functions of the cases_*.py modules beside this file;
--list prints their names, one a line (CMake makes one test of each). A case
that takes a parameter `mc` gets a memcached started for it and stopped after;
a case without parameters gets none. Each case runs the built slap and checks
what it prints against the servers' own `stats`. Servers are stopped by pid.
A case the machine cannot run (harness.Skip: a limit outside slap) exits 77,
which ctest reports as skipped, with the reason in its output.
"""
import argparse
import glob
import importlib
import inspect
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SKIPPED = 77  # the exit status of a skipped case (ctest's SKIP_RETURN_CODE)
TOP = os.path.dirname(os.path.dirname(HERE))


# Cases that check only counts, texts and files, never how long something took, so they may
# share the machine's two cores with another such case (ctest -j2). Every other case (rates,
# latencies, time limits, signals, UDP, valgrind) runs alone: a new case is serial until it is
# known to be neither timed nor disturbed by a neighbour.
SHARES_CPU = frozenset([
    "ascii_only_server", "bad_options", "binary", "binary_misses", "cfg_file", "cfg_file_bad",
    "tree_files_without_git", "subcommands_answer_help",
    # outputs and refusals checked, no time: valgrind's errors, files against each other
    "release_valgrind_clean", "csv_rows_match_json", "svg_holds_the_json_numbers",
    "udp_bad_headers", "limits_json_and_merge", "replay_bad_trace",
    # -v's checks against a fake server's values, counted, at the ends of the key sizes
    "verify_checks_every_key_size",
    "limits_garbage_server_stats",
    # a groups file refused before anything starts; a failed group named and the other reported
    "groups_bad_files", "groups_one_fails", "groups_runs_like_any_other",
    # its sides' figures above zero and a verdict word each, its signal sent once slap runs
    "netcompare_script",
    # after the run: each waits on a stall or a silent peer, and bounds only a stop's delay
    # (3 s for "about 2 s") and the periods' being non-empty
    "signal_while_writing_to_a_stalled_fifo", "stalled_fifo_fails_its_output",
    "signal_while_waiting_for_a_fifo_reader", "unix_socket_that_never_accepts",
    "stalled_samples_reader_costs_samples_not_periods",
    "silent_pushgateway_costs_pushes_not_periods", "push_resolver_that_never_answers",
    "unsent_counted_at_a_gigarequest_rate", "signal_while_standard_output_is_stalled",
    "compare_live_refusals", "compare_refusals", "completion_installed",
    "completion_matches_help", "confidence_bounds_within_seen", "confidence_fine_periods",
    "confidence_not_estimable", "connection_limit", "counters_counted", "dead_port",
    "descriptor_limits", "distribution_hash", "docs_laws_everywhere", "docs_layers_described",
    "docs_layers_include_downward", "docs_layers_no_module_circles",
    "docs_layers_engine_prints_nothing", "docs_layers_options_in_cli", "docs_list_every_option",
    "docs_source_formatted",
    "docs_memslap_options", "env_servers", "error_replies_by_kind", "every_command_every_protocol",
    "evictions", "examples_name_real_options", "execute_below_concurrency", "expiry_over_30_days",
    "facebook", "flush_preload", "flush_through_nutcracker", "garbage", "get_only_warmup",
    "hdr_out", "ipv6", "json_every_command", "json_to_stdout", "json_trace", "ketama_as_twemproxy",
    "ketama_not_libmemcached", "label_written_is_read_back", "limits_stalled_server_said",
    "man_page_documents_the_schema", "old_results_files_read", "old_results_generation_of_today",
    "old_results_golden",
    "max_errors", "memslap_as_memcslap", "memslap_dead_server", "memslap_invocations",
    "memslap_mget_every_key", "memslap_seed_loop", "memslap_speaks_memslap",
    "merge_memory_bounded_by_histograms", "merge_percentiles_exact_and_refusals",
    "merge_reads_pipes", "merge_refuses_a_run_twice_and_sums_sweeps",
    "merge_refuses_corrupt_numbers", "merge_streams_uneven_periods", "meta",
    "metrics_bad_options", "metrics_push_failures", "metrics_pushgateway", "mix_in_config_file",
    "mix_shares", "multiget", "multiget_keys_per_second", "multiget_two_servers", "output_fails",
    "output_that_cannot_be_written", "outputs_to_a_device_node", "outputs_to_a_fifo",
    "outputs_to_dev_null", "outputs_to_standard_output_by_name", "oversized_reply",
    "outputs_in_a_shared_directory_stay_slaps", "outputs_on_a_full_disk_say_so",
    "paths_in_messages_are_quoted", "names_with_control_bytes_quoted",
    "planted_links_and_fifos_refused",
    "temporary_file_is_slaps_own", "two_outputs_one_file",
    "package_deb_in_chroot", "package_image_runs", "pdsh_fanout_survives_a_failed_host",
    "pipeline", "plot_spectrum_of_two_runs",
    "preload_evictions", "quiet", "readers_linear_in_their_input", "regular_output_replaced_whole", "release_soak_60s", "rep_write",
    "replay_cas", "replay_client_order", "replay_due_after_the_end", "replay_from_stdin",
    "replay_long_ttl", "replay_protocols", "search_bad_objectives", "server_error",
    "server_list_checked", "sizes_in_header_and_config", "start_at_checked",
    "tiny_window_uneven_threads", "tls", "total_min_is_the_types_min", "trace_gen_deterministic",
    "trace_stats_estimates_many_keys", "trace_stats_malformed_lines",
    "trace_stats_recovers_generator", "trace_stats_usage", "trace_stats_zipf_skew",
    "trace_stats_zstd_plain_stdin", "truncated_reply", "two_servers", "udp_shared_socket",
    "unix_socket", "unsolicited_reply", "verify", "verify_detects", "verify_failures_are_errors",
    "compare_and_plot_read_long_runs", "merge_refuses_loops_and_lengths_that_differ",
    "results_rules_refused",
    # fleets: requests counted, parts and refusals checked; no figure of time
    "share_execute_number", "share_merge_refusals", "share_bad_options",
    "share_auto_from_engine", "merge_checks_time_and_servers", "merge_lists_old_hosts_figures",
    "examples_k8s_dry_run",
    # kernel stamps: every answer stamped, the fallback said, counters the server's; no time
    "timestamps_tls", "timestamps_udp", "timestamps_unix_falls_back",
    # workloads and authentication: the server's counts and sizes, refusals; no figure of time
    "auth_sasl_binary", "auth_ascii", "auth_bad_options", "auth_hostile_servers",
    "etc_sizes_as_the_server_holds_them", "ycsb_presets_as_the_server_counts",
    # counts, refusals and bounded waits (a silent peer fails within seconds, not a figure of
    # time): the fan-out's merged counters and parts, the schedule's intended times, the
    # reconnections counted
    "examples_fan_out_through_namespaces", "tls_silent_server",
    "streams_and_paths_that_are_no_results", "every_connection_silent", "arrivals_by_law",
    "reconnect_every_counts_connections", "reconnect_rate_spreads_reopens",
    # key patterns and bounds: the server's counts and items, no time
    "key_bounds_as_the_server_counts", "key_bounds_shared_between_runs",
    "key_pattern_sets_by_law_in_windows",
    # --priority: the worker threads' policy read from /proc and the refusals; no time
    "priority_realtime_workers",
    # counts and words that agree with each other, whatever the rates: the rounds' counters
    # and lengths (0.9 to 1.1 s), the groups' servers' counts, each step's verdict its row's
    "rounds_counted", "groups_writer_and_reader", "sweep_steps_judged", "search_steps_judged",
    # the proxy's counts against slap's and the memcached's, whatever the rates
    "proxy_stats_cover_the_run",
    # every thread at once: the outputs' counts agree with each other; no figure of time
    "every_thread_at_once",
])


def find_cases():
    """Every case_* function of the cases_*.py modules, by name without the prefix."""
    cases = {}
    for path in sorted(glob.glob(os.path.join(HERE, "cases_*.py"))):
        module = importlib.import_module(os.path.basename(path)[:-len(".py")])
        for name, fn in vars(module).items():
            if not (name.startswith("case_") and inspect.isfunction(fn)
                    and fn.__module__ == module.__name__):
                continue
            case = name[len("case_"):]
            if case in cases:
                raise SystemExit("%s: case %s is also in %s.py"
                                 % (path, case, cases[case].__module__))
            cases[case] = fn
    return cases


def wants_memcached(fn):
    """A case takes `mc` (a memcached of its own) or nothing."""
    params = list(inspect.signature(fn).parameters)
    if params not in ([], ["mc"]):
        raise SystemExit("%s: a case takes (mc) or (), not %r" % (fn.__name__, params))
    return params == ["mc"]


def run_case(name, fn):
    mc = harness.Memcached() if wants_memcached(fn) else None
    try:
        if mc is not None:
            fn(mc)
        else:
            fn()
    except harness.Failure as f:
        print("FAIL %s: %s" % (name, f))
        return 1
    except harness.Skip as s:
        print("SKIP %s: %s" % (name, s))
        return SKIPPED
    finally:
        if mc is not None:
            mc.stop()
    print("PASS %s" % name)
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--list", action="store_true", help="print the cases' names and exit")
    p.add_argument("--list-shared", action="store_true",
                   help="print the names of the cases that may run beside another, and exit")
    p.add_argument("--slap")
    p.add_argument("--memcached", default="memcached")
    p.add_argument("--lmc-check", default="lmc_check")
    p.add_argument("--man", default=os.path.join(TOP, "man", "slap.1"),
                   help="the man page docs_list_every_option reads (default: the repository's)")
    p.add_argument("--readme", default=os.path.join(TOP, "README.md"),
                   help="the README docs_list_every_option reads (default: the repository's)")
    p.add_argument("case", nargs="?")
    args = p.parse_args()
    cases = find_cases()
    if args.list_shared:
        unknown = SHARES_CPU - set(cases)
        if unknown:
            raise SystemExit("SHARES_CPU names no such case: %s" % ", ".join(sorted(unknown)))
        print("\n".join(sorted(SHARES_CPU)))
        return 0
    if args.list:
        for name in cases:
            wants_memcached(cases[name])
            print(name)
        return 0
    if args.slap is None or args.case is None:
        p.error("--slap and a case are needed (or --list)")
    fn = cases.get(args.case)
    if fn is None:
        print("unknown case %s" % args.case)
        return 2
    harness.PATHS.slap = args.slap
    harness.PATHS.memcached = args.memcached
    harness.PATHS.lmc_check = args.lmc_check
    harness.PATHS.man = args.man
    harness.PATHS.readme = args.readme
    return run_case(args.case, fn)


if __name__ == "__main__":
    sys.exit(main())
