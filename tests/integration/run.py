#!/usr/bin/env python3
"""Integration tests of slap against a real memcached started on a free loopback port.

Usage: run.py --list | --list-properties
       run.py --slap PATH [--memcached PATH] [--lmc-check PATH] [--man PATH] [--readme PATH] CASE

The cases are the case_* functions of the cases_*.py modules beside this file;
--list prints their names, one a line (CMake makes one test of each). A case
that takes a parameter `mc` gets a memcached started for it and stopped after;
a case without parameters gets none. Each case runs the built slap and checks
what it prints against the servers' own `stats`. Servers are stopped by pid.
A case the machine cannot run (harness.Skip: a limit outside slap, or a need
declared with @needs that the machine lacks) exits 77, which ctest reports as
skipped, with the reason in its output.

A case's properties are declared on it (harness: @no_time, @release_only,
@needs, @timeout); --list-properties prints them for ctest, one case a line:
NAME TIMEOUT LABELS, the labels separated by commas (tests/CMakeLists.txt).
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


def properties(fn):
    """A case's line for ctest: its name, time limit and labels."""
    p = harness.props(fn)
    if p["no_time"]:  # the quick tier: no time measured, nor a long time taken
        labels = ["no_time", "quick" if p["timeout"] <= 120 else "slow"]
    else:
        labels = ["timed"]
    if p["release_only"]:
        labels.append("release_only")
    labels += [harness.NEEDS[n][0] for n in p["needs"]]
    if p["threads"]:
        labels.append("threads")
    return "%d %s" % (p["timeout"], ",".join(labels))


def unmet_need(fn):
    """The first need declared on the case that this machine lacks, in words, or None."""
    for n in harness.props(fn)["needs"]:
        _, met, why = harness.NEEDS[n]
        if met is not None and not met():
            return why
    return None


def run_case(name, fn):
    harness.CASE.name = name
    why = unmet_need(fn)
    if why is not None:
        print("SKIP %s: %s" % (name, why))
        harness.record("SKIP", why)
        return SKIPPED
    mc = None
    try:
        mc = harness.Memcached() if wants_memcached(fn) else None
        if mc is not None:
            fn(mc)
        else:
            fn()
    except harness.Failure as f:
        print("FAIL %s: %s" % (name, f))
        harness.record("FAIL", f)
        return 1
    except harness.Skip as s:
        print("SKIP %s: %s" % (name, s))
        harness.record("SKIP", s)
        return SKIPPED
    except BaseException as e:  # a broken case or harness: its first failure is recorded too
        harness.record("FAIL", "%s: %s" % (type(e).__name__, e))
        raise
    finally:
        if mc is not None:
            mc.stop()
    print("PASS %s" % name)
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--list", action="store_true", help="print the cases' names and exit")
    p.add_argument("--list-properties", action="store_true",
                   help="print each case's name, time limit and labels, and exit")
    p.add_argument("--slap")
    p.add_argument("--memcached", default="memcached")
    p.add_argument("--lmc-check", default="lmc_check")
    p.add_argument("--man", default=os.path.join(TOP, "build", "man", "slap.1"),
                   help="slap's man page as the build makes it (default: build/man/slap.1); "
                        "the subcommands' pages are read beside it")
    p.add_argument("--readme", default=os.path.join(TOP, "README.md"),
                   help="the README docs_list_every_option reads (default: the repository's)")
    p.add_argument("case", nargs="?")
    args = p.parse_args()
    cases = find_cases()
    if args.list_properties:
        for name in cases:
            wants_memcached(cases[name])
            print("%s %s" % (name, properties(cases[name])))
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
