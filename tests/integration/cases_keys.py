"""Key patterns and bounds (--key_pattern, --key_min, --key_max): which keys each command
takes, as the server holds and counts them."""
import re
from harness import check, check_agree, counters, measured, Memcached
from harness import no_time
from cases_workloads import metadump

KEY_RE = re.compile(r"^shared-([0-9a-f]{8})")


def shared_numbers(mc):
    """The numbers of the range keys the server holds (shared-nnnnnnnn + filler)."""
    numbers = []
    for key, _ in metadump(mc):
        m = KEY_RE.match(key)
        check(m is not None, "a key of no range: %r" % key)
        numbers.append(int(m.group(1), 16))
    return numbers


def curr_items(mc):
    return int(mc.stats()[0]["curr_items"])


@no_time
def case_key_bounds_as_the_server_counts(mc):
    """--key_min=0 --key_max=999 --key_pattern=set:uniform,get:zipf from 4 clients: the server
    holds only keys 0 to 999, one item per distinct key (curr_items), about as many as 2000
    uniform draws of 1000 reach (865; a walk would reach all 1000); slap's cmd_get, cmd_set,
    get_misses and bytes are the server's, and its hits the server's get_hits (gets of keys
    never set are misses)."""
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "--key_min=0", "--key_max=999",
                                             "--key_pattern=set:uniform,get:zipf", "-x", "20000",
                                             "-c", "4", "-T", "2"])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    c = counters(out)
    check_agree(c, delta)
    check(c["cmd_get"] - c["get_misses"] == delta["get_hits"],
          "slap's hits %d, the server's get_hits %d" % (c["cmd_get"] - c["get_misses"],
                                                       delta["get_hits"]))
    check(c["cmd_set"] == 2000 and c["cmd_get"] == 18000, "the mix: %r" % c)
    numbers = shared_numbers(mc)
    items = curr_items(mc)
    check(len(numbers) == items and len(set(numbers)) == items,
          "curr_items %d, %d keys held, %d distinct" % (items, len(numbers), len(set(numbers))))
    check(all(0 <= n <= 999 for n in numbers), "a key outside 0..999: %r" %
          [n for n in numbers if n > 999][:5])
    check(800 < items < 930, "2000 uniform sets reached %d keys of 1000 (865 expected)" % items)


@no_time
def case_key_bounds_shared_between_runs(mc):
    """Two runs with the same bounds use the same keys: 1000 sets from 4 clients walking
    --key_min=5000 --key_max=5999 from their own places store each key once (curr_items 1000);
    a second run of gets only, 3 clients, hits every one; a third over 5000..6999 misses the
    half never set, slap's misses the server's; --preload over 7000..7499 sets each key once
    (split among 3 clients) and its gets all hit."""
    bounds = ["-s", mc.addr, "--key_min=5000", "--key_max=5999"]
    rc, out, err, delta, _ = measured([mc], bounds + ["--ratio=1:0", "-x", "1000", "-c", "4"])
    check(rc == 0, "sets: exit status %d: %s" % (rc, err))
    check_agree(counters(out), delta)
    check(curr_items(mc) == 1000, "1000 sets walking from 4 places left %d items" % curr_items(mc))
    rc, out, err, delta, _ = measured([mc], bounds + ["--ratio=0:1", "-x", "3000", "-c", "3"])
    check(rc == 0, "gets: exit status %d: %s" % (rc, err))
    c = counters(out)
    check_agree(c, delta)
    check(c["cmd_get"] == 3000 and c["get_misses"] == 0 and delta["cmd_set"] == 0,
          "the second run's gets: %d, %d missed, %d sets" % (c["cmd_get"], c["get_misses"],
                                                             delta["cmd_set"]))
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "--key_min=5000", "--key_max=6999",
                                             "--ratio=0:1", "-x", "2000", "-c", "2"])
    check(rc == 0, "wider gets: exit status %d: %s" % (rc, err))
    c = counters(out)
    check_agree(c, delta)
    check(700 < c["get_misses"] < 1300, "gets over 2000 keys, 1000 stored: %d of 2000 missed"
          % c["get_misses"])
    before = curr_items(mc)
    rc, out, err = measured([mc], ["-s", mc.addr, "--key_min=7000", "--key_max=7499", "--preload",
                                   "--ratio=0:1", "-x", "1500", "-c", "3"])[:3]
    check(rc == 0, "--preload: exit status %d: %s" % (rc, err))
    check(re.search(r"^preload: 500 sets", out, re.M) is not None, "no 500-set preload: %s" % out)
    c = counters(out)
    check(curr_items(mc) - before == 500, "the preload added %d items" % (curr_items(mc) - before))
    check(c["cmd_get"] == 1500 and c["get_misses"] == 0, "after the preload: %r" % c)
    numbers = shared_numbers(mc)
    check(sorted(n for n in numbers if n >= 7000) == list(range(7000, 7500)),
          "the preload's keys are not 7000..7499")


@no_time
def case_key_pattern_sets_by_law_in_windows(mc):
    """Windows (no bounds) with --key_pattern set:zipf,get:sequential: no command of the mix
    walks the windows, so they are filled first (2 clients x -w 200: 400 sets said as the
    preload), then every get finds its key (the server counts no miss), the sets rewrite keys
    of the windows only (curr_items stays 400) and slap's gets and sets are the server's."""
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-w", "200", "-c", "2",
                                             "--key_pattern=set:zipf,get:sequential",
                                             "--mix=get=8,set=2", "-x", "4000"])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    c = counters(out)
    preload = re.search(r"^preload: (\d+) sets", out, re.M)
    check(preload is not None and int(preload.group(1)) == 400, "no 400-set preload: %s" % out)
    check(c["get_misses"] == 0 and delta["get_misses"] == 0 and
          delta["get_hits"] == c["cmd_get"] == 3200,
          "gets %d, misses %d (server %d), server hits %d" % (c["cmd_get"], c["get_misses"],
                                                              delta["get_misses"],
                                                              delta["get_hits"]))
    check(delta["cmd_set"] == 400 + c["cmd_set"] and c["cmd_set"] == 800,
          "sets: slap %d (and 400 preloaded), the server %d" % (c["cmd_set"], delta["cmd_set"]))
    check(curr_items(mc) == 400, "the windows' 400 keys became %d items" % curr_items(mc))
