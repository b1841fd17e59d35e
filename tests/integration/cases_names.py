"""Names from outside (paths, labels, servers, a file's words) in every command's messages:
shown by one rule, never as raw bytes that could paint the terminal or forge a line."""
import os
import re
import shutil
import subprocess
import tempfile

from harness import PATHS, check, run_slap
from harness import no_time

# ESC (a colour), BEL, CR, LF (a forged line after it), a stray 0xff and a lead byte alone
HOSTILE = b"N\x1b[31m\x07\r\nFORGED\xff\xc3Z"
SHOWN = b"N\\x1b[31m\\x07\\x0d\\x0aFORGED\\xff\\xc3Z"
WORD = b"W\x1b[31m\x07FORGED\xff\xc3Z"  # no blank: a word inside a file or a side's target
WORD_SHOWN = b"W\\x1b[31m\\x07FORGED\\xff\\xc3Z"
RAW = (b"\x1b", b"\x07", b"\r", b"\xff", b"\xc3Z")


def commands_listed():
    """The commands `slap --help` lists under "Other commands", each a row below or a failure."""
    out = subprocess.run([PATHS.slap, "--help"], capture_output=True, text=True,
                         timeout=30).stdout
    listed = out.split("Other commands", 1)[1].split("\n\n", 1)[0]
    return sorted(set(re.findall(r"^  slap (\S+)", listed, re.M)))


def error_paths(mc, d):
    """Each command (the plain run as "") and its error paths that name a path, a label, a
    server or a file's word: (what, arguments, the name as its message shows it[, the exit
    statuses expected: 1 or 2 unless given])."""
    missing, folder = d + b"/" + HOSTILE, d + b"/dir" + HOSTILE
    os.makedirs(folder)
    unwritable = d + b"/nodir" + HOSTILE + b"/out"
    server = mc.addr.encode()
    run = [b"-s", server, b"-x", b"200", b"-c", b"1"]
    good = d + b"/good.json"
    store = d + b"/runs.db"
    rc, _, err = run_slap([a.decode() for a in run] + ["--json", good.decode(), "--store",
                                                        store.decode(), "--label", "names"])
    check(rc == 0, "a results file to start from: %d %r" % (rc, err))

    def write(name, text):
        path = d + b"/" + name + HOSTILE
        with open(path, "wb") as f:
            f.write(text)
        return path
    not_json = write(b"nj", b"hello " + WORD + b"\n")
    cfg_word = write(b"cfg", b"key\n" + WORD + b"\n")
    groups_word = write(b"groups", b"group a\n --key_dist=" + WORD + b"\n")
    trace_word = write(b"tr", b"0,k,1,1,1," + WORD + b",0\n")
    samples_word = write(b"samples", WORD + b"\n")
    side = write(b"side", open(good, "rb").read()) + b"*"  # a glob that matches it
    return {
        "": [
            ("-F missing", run + [b"-F", missing], SHOWN),
            ("-F a directory", run + [b"-F", folder], SHOWN),
            ("-F a word of the file", run + [b"-F", cfg_word], WORD_SHOWN),
            ("-F a group's word", [b"-s", server, b"-F", groups_word], WORD_SHOWN),
            ("--json", run + [b"--json", unwritable], SHOWN),
            ("--csv", run + [b"--csv", unwritable], SHOWN),
            ("--svg", run + [b"--svg", unwritable], SHOWN),
            ("--hdr_out", run + [b"--hdr_out", unwritable], SHOWN),
            ("--samples", run + [b"--samples", unwritable], SHOWN),
            ("--store", run + [b"--store", unwritable], SHOWN),
            ("--trace missing", [b"-s", server, b"--trace", missing], SHOWN),
            ("--trace a directory", [b"-s", server, b"--trace", folder], SHOWN),
            ("--trace a word of the file", [b"-s", server, b"--trace", trace_word], SHOWN),
            ("--auth missing", run + [b"--auth", missing], SHOWN),
            ("--tls_ca missing", [b"-s", server, b"--tls", b"--tls_ca", missing], SHOWN),
            ("-s a host", [b"-s", HOSTILE, b"-x", b"10"], SHOWN),
            ("-s a unix socket", [b"-s", b"/tmp/" + HOSTILE, b"-x", b"10"], SHOWN),
            ("--stats_servers", run + [b"--stats_servers", HOSTILE], SHOWN),
            ("--label", run + [b"--label", HOSTILE], SHOWN),
            ("--push", run + [b"--push", b"http://" + HOSTILE], SHOWN),
            ("--sweep --json", [b"-s", server, b"--sweep", b"100:200:100", b"--step_time",
                                b"400ms", b"--json", unwritable], SHOWN),
            ("an unknown option", [b"--" + HOSTILE], SHOWN),
        ],
        "memslap": [
            ("-s a host", [b"-s", HOSTILE], SHOWN),
            ("-s a unix socket", [b"-s", b"/tmp/" + HOSTILE], SHOWN),
            ("--test", [b"-s", server, b"--test", HOSTILE], SHOWN),
        ],
        "merge": [
            ("missing", [missing], SHOWN),
            ("a directory", [folder], SHOWN),
            ("not JSON", [not_json], SHOWN),
            ("--json", [good, b"--json", unwritable], SHOWN),
            ("--store", [good, b"--store", unwritable], SHOWN),
        ],
        "history": [
            ("--store missing", [b"--store", missing], SHOWN),
            ("--store not a store", [b"--store", not_json], SHOWN),
            ("--import not JSON", [b"--store", store, b"--import", not_json], SHOWN),
            ("a series' name", [b"--store", store, HOSTILE], SHOWN),
            ("--svg", [b"--store", store, b"names", b"--svg", unwritable], SHOWN),
        ],
        "plot": [
            ("missing", [missing, b"-o", b"/dev/null"], SHOWN),
            ("not JSON", [not_json, b"-o", b"/dev/null"], SHOWN),
            ("-o", [good, b"-o", unwritable], SHOWN),
            ("--samples missing", [good, b"--samples", missing, b"-o", b"/dev/null"], SHOWN),
            ("--samples not samples", [good, b"--samples", samples_word, b"-o", b"/dev/null"],
             SHOWN),
        ],
        "compare": [
            ("a glob that matches nothing", [d + b"/none" + HOSTILE + b"*", good], SHOWN),
            ("missing", [good, missing], SHOWN),
            ("a directory", [good, folder], SHOWN),
            ("not JSON", [good, not_json], SHOWN),
            ("a side's name in the table", [good, side], SHOWN, (0,)),
            ("--json", [good, side, b"--json", unwritable], SHOWN),
            ("--fail-if", [good, side, b"--fail-if", HOSTILE], SHOWN),
            ("--live a side's servers", [b"--live", b"A=" + server,
                                         b"B=" + server + b",/tmp/" + WORD], WORD_SHOWN),
        ],
        "search": [
            ("-s a host", [b"-s", HOSTILE, b"--slo", b"p99<1ms"], SHOWN),
            ("--slo", [b"-s", server, b"--slo", HOSTILE], SHOWN),
            ("--json", [b"-s", server, b"--slo", b"p99<1s", b"--max_steps", b"1",
                        b"--step_time", b"400ms", b"--json", unwritable], SHOWN),
        ],
        "trace-stats": [
            ("missing", [missing], SHOWN),
            ("a directory", [folder], SHOWN),
            ("a word of the file", [trace_word], SHOWN),
        ],
    }


@no_time
def case_names_with_control_bytes_quoted(mc):
    """Every command, through each error path that names a path, a label, a server or a word
    of a file, given one holding ESC, BEL, CR, LF, a stray 0xff and a lead byte alone: its
    standard output and error hold none of those bytes raw (no forged line either), still name
    the thing (the bytes as \\xNN), and it fails with a status of its own (no crash). The
    commands are the ones `slap --help` lists: a new one without its row here fails."""
    d = tempfile.mkdtemp(prefix="slap-names-").encode()
    try:
        paths = error_paths(mc, d)
        listed = commands_listed()
        check(listed and set(listed) == set(paths) - {""},
              "commands listed by slap --help %r, with error paths here %r"
              % (listed, sorted(paths)))
        for command, tries in sorted(paths.items()):
            for what, args, shown, *status in tries:
                name = "slap %s: %s" % (command or "(a run)", what)
                names_shown(name, [command.encode()] if command else [], args, shown,
                            status[0] if status else (1, 2))
    finally:
        shutil.rmtree(d)


def names_shown(name, command, args, shown, statuses):
    proc = subprocess.run([PATHS.slap.encode()] + command + args, capture_output=True, timeout=60)
    both = proc.stdout + proc.stderr
    print("$ %s -> %d\n%s" % (name, proc.returncode, both.decode("utf-8", "backslashreplace")))
    check(proc.returncode in statuses, "%s: exit status %d" % (name, proc.returncode))
    raw = [r for r in RAW if r in both]
    check(not raw, "%s: raw bytes %r in %r" % (name, raw, both[-400:]))
    check(not re.search(rb"^FORGED", both, re.M), "%s: a forged line" % name)
    check(shown in both, "%s: the name is not shown as %r" % (name, shown))
