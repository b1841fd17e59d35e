#!/usr/bin/env python3
"""What a pass of the suite tried again, set aside or skipped, one line each (scripts/test.sh).

Usage: test-summary.py PASS RECORD CTEST_LOG

RECORD is the file the integration cases wrote (tests/integration/harness.py: FAIL, ASIDE and
SKIP lines, each `KIND case: words`); CTEST_LOG is ctest's output, which adds the tries of
unit tests and the tries ctest timed out. A case that failed a try is named with how many
times and its first failure, whether or not a later try passed.
"""
import collections
import re
import sys


def main():
    pass_, record, log = sys.argv[1:4]
    lines = collections.defaultdict(list)  # (kind, case) -> words, in order
    with open(record, errors="replace") as f:
        for line in f:
            m = re.match(r"(FAIL|ASIDE|SKIP) ([a-z0-9_]+): (.*)", line.rstrip("\n"))
            if m:
                lines[(m.group(1), m.group(2))].append(m.group(3))
    with open(log, errors="replace") as f:
        for m in re.finditer(r"Test +#\d+: (\S+) \.+\*\*\*(Failed|Timeout)", f.read()):
            name = re.sub(r"^integration_", "", m.group(1))
            if m.group(2) == "Timeout" or ("FAIL", name) not in lines:
                lines[("FAIL", name)].append("timed out" if m.group(2) == "Timeout"
                                             else "failed (its output is above)")
    order = {"FAIL": 0, "ASIDE": 1, "SKIP": 2}
    for (kind, name), words in sorted(lines.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
        if kind == "FAIL":
            print("%s: %s failed %d time(s), first: %s" % (pass_, name, len(words), words[0]))
        elif kind == "ASIDE":
            print("%s: %s set %d try(s) aside, first: %s" % (pass_, name, len(words), words[0]))
        else:
            print("%s: %s skipped: %s" % (pass_, name, words[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
