"""The documentation keeps up with the options."""
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from harness import (check, man_page, Memcached, PATHS, run_slap)
from harness import SAME_IN_EVERY_BUILD, no_time, release_only

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the chapter of the guide that holds memslap's command line
MEMSLAP_CHAPTER = os.path.join(TOP, "docs", "memaslap.md")


def documents(text, dashes, name, hyphen):
    """Whether text has the option itself: dashes + name, not the start of a longer
    name (--tls of --tls_ca, or of --tls-ca when hyphen is "-")."""
    return re.search(re.escape(dashes + name) + r"(?![a-z0-9_]|%s[a-z0-9])" % re.escape(hyphen),
                     text) is not None


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_list_every_option():
    """Every long option of --help is in the man pages as roff writes it (\\-\\-name, every
    hyphen escaped), slap's own (before the list of commands) in slap.1 with an entry of its
    own. The man pages are the options' reference: the README and the guide list none."""
    rc, out, err = run_slap(["--help"])
    check(rc == 0, "--help exit status %d" % rc)
    names = sorted(set(re.findall(r"--([a-z0-9_]+(?:-[a-z0-9_]+)*)", out)))
    check(len(names) > 40, "too few options in --help: %r" % names)
    own = set(re.findall(r"--([a-z0-9_]+(?:-[a-z0-9_]+)*)", out.split("Other commands", 1)[0]))
    with open(PATHS.man) as f:
        man = f.read()
    pages = man
    for sub in help_subcommands():
        with open(man_page(sub)) as f:
            pages += f.read()
    for name in names:
        check(documents(pages, r"\-\-", name.replace("-", r"\-"), r"\-"),
              "%s and the subcommands' pages do not document --%s" % (PATHS.man, name))
        roff = r"\-\-" + name.replace("-", r"\-")
        # its entry: a line of roff that begins with it (after its letter, when it has one)
        entry = r'^\.(?:B|BI|BR|IR|RB) "?(?:\\-[a-zA-Z]+(?: "(?:, " |, )|\\fR, \\fP))?' + \
            re.escape(roff) + \
            r"(?![a-z0-9_]|\\-[a-z])"
        check(name not in own or re.search(entry, man, re.M) is not None,
              "%s names --%s but has no entry for it (a .B/.BI/.BR line that begins with it)"
              % (PATHS.man, name))


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_memslap_options():
    """Every long option of `slap memslap --help` is in slap-memslap.1 (\\-\\-name) and in the
    guide's chapter on memslap's command line (docs/memaslap.md, as --name), and slap.1's
    section on memslap's command line points to slap-memslap(1)."""
    rc, out, err = run_slap(["memslap", "--help"])
    check(rc == 0, "memslap --help exit status %d" % rc)
    names = sorted(set(re.findall(r"--([a-z0-9_]+(?:-[a-z0-9_]+)*)", out)))
    check(len(names) >= 18, "too few options in memslap's --help: %r" % names)
    with open(PATHS.man) as f:
        slap_man = f.read()
    with open(man_page("memslap")) as f:
        man = f.read()
    with open(MEMSLAP_CHAPTER) as f:
        chapter = f.read()
    section = re.search(r"^\.SH MEMSLAP'S COMMAND LINE\n(.*?)^\.SH ", slap_man, re.M | re.S)
    check(section is not None and r".BR slap\-memslap (1)" in section.group(1),
          "%s has no section on memslap pointing to slap-memslap(1)" % PATHS.man)
    for name in names:
        check(documents(man, r"\-\-", name.replace("-", r"\-"), r"\-"),
              "%s does not document memslap's --%s" % (man_page("memslap"), name))
        check(documents(chapter, "--", name, "-"),
              "%s does not document memslap's --%s" % (MEMSLAP_CHAPTER, name))


def help_subcommands():
    """The subcommands `slap --help` lists (from their rows, include/slap/options/subcommand_list.h)."""
    rc, out, err = run_slap(["--help"])
    check(rc == 0, "--help exit status %d" % rc)
    part = out.split("Other commands", 1)
    check(len(part) == 2, "--help has no list of the other commands")
    section = part[1].split("\n\n", 1)[0]
    names = []
    for name in re.findall(r"^  slap ([a-z][a-z-]*)", section, re.M):
        if name not in names:
            names.append(name)
    return names


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_subcommands_everywhere():
    """Every subcommand of `slap --help`'s list (generated from the table of subcommands)
    answers its own --help, has a synopsis in the man page (.SY slap / .B name, or
    .SY "slap name") and is offered by the bash completion as slap's first word; the
    completion offers no other."""
    names = help_subcommands()
    check(len(names) >= 6, "too few subcommands in --help: %r" % names)
    with open(PATHS.man) as f:
        man = f.read()
    completion_path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "completion", "slap.bash")
    with open(completion_path) as f:
        completion = f.read()
    first = re.search(r'COMP_CWORD == 1\)\); then\s+mapfile -t COMPREPLY < <\(compgen -W "([^"]*)"',
                      completion)
    check(first is not None, "%s offers no subcommands as the first word" % completion_path)
    offered = first.group(1).split()
    for name in names:
        roff = name.replace("-", r"\-")
        check(re.search(r'^\.SY slap\n\.B %s$' % re.escape(roff), man, re.M) is not None or
              '.SY "slap %s"' % roff in man,
              "%s has no synopsis of slap %s" % (PATHS.man, name))
        check(name in offered, "%s does not offer slap %s" % (completion_path, name))
        rc, out, err = run_slap([name, "--help"])
        check(rc == 0 and out.startswith("Usage: slap %s" % name) and err == "",
              "slap %s --help: %d %r %r" % (name, rc, out[:60], err))
    check(sorted(offered) == sorted(names),
          "the completion offers %r, slap --help lists %r" % (offered, names))


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_protocols_everywhere():
    """Every protocol slap takes (its codec table's names) is in the man page's --protocol
    entry (.B name) and offered by the completion's --protocol."""
    from harness import slap_protocols
    protocols = slap_protocols()
    check(len(protocols) >= 3, "too few protocols: %r" % protocols)
    with open(PATHS.man) as f:
        man = f.read()
    entry = re.search(r"^\.BI \\-\\-protocol= name\n(.*?)^\.TP", man, re.M | re.S)
    check(entry is not None, "%s has no --protocol entry" % PATHS.man)
    completion_path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "completion", "slap.bash")
    with open(completion_path) as f:
        offered = re.search(r'--protocol\) echo "([^"]*)"', f.read())
    check(offered is not None, "the completion offers no --protocol values")
    for name in protocols:
        check(re.search(r"^\.BR? %s\b" % re.escape(name), entry.group(1), re.M) is not None,
              "%s's --protocol entry does not name %s" % (PATHS.man, name))
    check(sorted(offered.group(1).split()) == sorted(protocols),
          "the completion's --protocol offers %r, slap takes %r" % (offered.group(1), protocols))


def merge_sinks():
    """The file outputs written from a finished results document, as `slap merge --help` lists
    its options: one row per sink of the table (src/output/sinks.c), so no case keeps a list."""
    rc, out, err = run_slap(["merge", "--help"])
    check(rc == 0, "merge --help exit status %d" % rc)
    return re.findall(r"^  --([a-z0-9_]+(?:-[a-z0-9_]+)*) FILE ", out, re.M)


def roff_options(text, pattern):
    """The option names (roff's \\-\\- taken off, its hyphens too) pattern finds in text."""
    return [name.replace(r"\-", "-") for name in re.findall(pattern, text, re.M)]


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_outputs_everywhere():
    """Every file output of the sink table (the options `slap merge` takes) is in the man page's
    list of output files, in slap merge's synopsis and its section's first line (which name no
    other output), has a section of its own under RESULTS AS DATA, is in the usage lines slap
    shows (slap merge --help, slap --help's list of commands) and is offered by the completion
    after slap merge (which offers no other but --store, the results store, not a file)."""
    sinks = merge_sinks()
    check(len(sinks) >= 3, "too few outputs in slap merge --help: %r" % sinks)
    with open(PATHS.man) as f:
        man = f.read()
    listed = re.search(r"^\.SS Output files\n(.*?)are saved alike", man, re.M | re.S)
    check(listed is not None, "%s has no list of output files" % PATHS.man)
    synopsis = re.search(r"^\.SY slap\n\.B merge\n(.*?)^\.YS", man, re.M | re.S)
    check(synopsis is not None, "%s has no synopsis of slap merge" % PATHS.man)
    with open(man_page("merge")) as f:
        section = re.search(r"^\.SH DESCRIPTION\n(.*?)^combines", f.read(), re.M | re.S)
    check(section is not None, "%s has no description of slap merge" % man_page("merge"))
    data = man.split("\n.SH RESULTS AS DATA\n", 1)
    check(len(data) == 2, "%s has no RESULTS AS DATA" % PATHS.man)
    titles = re.findall(r"^\.SS (.*)$", data[1].split("\n.SH ", 1)[0], re.M)
    in_list = roff_options(listed.group(1), r"^\.BR? \\-\\-([a-z0-9_\\-]+)")
    in_synopsis = roff_options(synopsis.group(1), r"^\.OP \\-\\-([a-z0-9_\\-]+) file$")
    in_section = roff_options(section.group(1), r"^\.RB \[ \\-\\-([a-z0-9_\\-]+)$")
    for name in sinks:
        roff = r"\-\-" + name.replace("-", r"\-")
        check(name in in_list, "%s's list of output files does not name --%s" % (PATHS.man, name))
        check(any(re.search(re.escape(roff) + r"[,)]", t) for t in titles),
              "%s has no section on --%s under RESULTS AS DATA" % (PATHS.man, name))
    check(sorted(in_synopsis) == sorted(sinks),
          "%s's synopsis of slap merge names %r, the sinks are %r" % (PATHS.man, in_synopsis,
                                                                      sinks))
    check(sorted(in_section) == sorted(sinks),
          "%s's description names %r, the sinks are %r" % (man_page("merge"), in_section, sinks))
    # the usage lines slap itself shows: slap merge --help's, and slap --help's list of commands
    rc, out, _ = run_slap(["merge", "--help"])
    # (a usage line too wide goes on under its second word, on lines of spaces and "[")
    usage = re.search(r"^Usage: slap merge (.*(?:\n {8,}\[.*)*)$", out, re.M)
    check(rc == 0 and usage is not None, "slap merge --help shows no Usage line: %r" % out[:300])
    rc, out, _ = run_slap(["--help"])
    listed_cmd = re.search(r"^\s*(?:slap )?merge RESULT\.json\.\.\.(.*(?:\n {8,}\[.*)*)$", out,
                           re.M)
    check(listed_cmd is not None, "slap --help lists no merge command line")
    for line, where in ((usage.group(1), "slap merge --help's Usage line"),
                        (listed_cmd.group(1), "slap --help's merge line")):
        named = re.findall(r"\[--([a-z0-9_\-]+) FILE\]", line)
        check(sorted(named) == sorted(sinks),
              "%s names %r, the sinks are %r" % (where, named, sinks))
    completion_path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "completion", "slap.bash")
    with open(completion_path) as f:
        offered = re.search(r'subcommand == merge .*?local sub_options="([^"]*)"', f.read(), re.S)
    check(offered is not None, "%s offers no options after slap merge" % completion_path)
    completed = [word[2:] for word in offered.group(1).split() if word.startswith("--")]
    check(sorted(completed) == sorted(sinks + ["store"]) and
          len(completed) == len(offered.group(1).split()),
          "the completion offers %r after slap merge, the sinks are %r" % (
              offered.group(1).split(), sinks))


def help_options(args):
    """The options `slap ARGS --help` lists, each as the set of its names ({"-s", "--servers"}):
    its rows' left column ("  -s, --servers=LIST", "  --json FILE", "  -o, --output FILE.svg")."""
    rc, out, err = run_slap(args + ["--help"])
    check(rc == 0, "slap %s --help: exit status %d" % (" ".join(args), rc))
    options = []
    for line in out.splitlines():
        m = re.match(r"^ {2,6}(-\S.*?)(?: {2,}|$)", line)
        if m is not None:
            names = frozenset(re.findall(r"(?:^|, )(--?[A-Za-z0-9][A-Za-z0-9_-]*)", m.group(1)))
            if names and names not in options:
                options.append(names)
    return options


def roff_plain(line):
    """A macro line of roff as it reads: the macro's arguments joined as the alternating
    macros join them, without font changes, \\- as -."""
    line = re.sub(r"^\.[A-Z]+ ?", "", line)
    words = [m.group(1) if m.group(1) is not None else m.group(2)
             for m in re.finditer(r'"([^"]*)"|(\S+)', line)]
    return re.sub(r"\\f[BIRP]", "", "".join(words)).replace("\\-", "-").replace("\\&", "")


def man_option_heads(path):
    """The heads of a man page's OPTIONS entries (the line after each .TP), each as the set of
    the option names it begins with."""
    with open(path) as f:
        man = f.read()
    section = re.search(r"^\.SH OPTIONS\n(.*?)(?=^\.SH |\Z)", man, re.M | re.S)
    check(section is not None, "%s has no OPTIONS" % path)
    heads = re.findall(r"^\.TP\n(.*)$", section.group(1), re.M)
    return [frozenset(re.findall(r"(?:^|, )(--?[A-Za-z0-9][A-Za-z0-9_-]*)", roff_plain(h)))
            for h in heads]


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_man_pages_from_rows():
    """slap.1 and each subcommand's page (slap-NAME.1 beside it, made by the build from the
    option rows) render with no warning (groff -man -ww -z, and man --warnings where man is
    installed); every option `slap [NAME] --help` lists has an entry head in its page's OPTIONS
    with the same names, and no entry head names an option --help lacks."""
    import shutil
    import subprocess
    subcommands = help_subcommands()
    check(len(subcommands) >= 6, "too few subcommands in --help: %r" % subcommands)
    for sub in [None] + subcommands:
        path = man_page(sub)
        check(os.path.exists(path), "no man page %s for %s" % (path, sub or "slap"))
        r = subprocess.run(["groff", "-man", "-ww", "-z", path], capture_output=True, text=True,
                           timeout=60)
        check(r.returncode == 0 and r.stderr == "", "groff warns of %s: %s" % (path, r.stderr))
        if shutil.which("man") is not None:
            r = subprocess.run(["man", "--warnings", "-l", path], capture_output=True, text=True,
                               timeout=60, env=dict(os.environ, MANPAGER="cat", PAGER="cat"))
            check(r.returncode == 0 and r.stderr == "", "man --warnings of %s: %s" % (path, r.stderr))
        helped = help_options([sub] if sub is not None else [])
        check(len(helped) >= 2, "slap %s --help lists too few options: %r" % (sub or "", helped))
        heads = man_option_heads(path)
        for names in helped:
            check(any(names <= head for head in heads),
                  "%s has no OPTIONS entry for %s (slap %s--help lists it)"
                  % (path, ", ".join(sorted(names)), sub + " " if sub else ""))
        known = set().union(*helped)
        for head in heads:
            check(head and head <= known, "%s's OPTIONS has an entry for %s, which slap %s--help "
                  "does not list" % (path, ", ".join(sorted(head)) or "nothing",
                                     sub + " " if sub else ""))


def refused_laws(args, pattern):
    """The laws slap lists when it refuses args (its messages are made from its tables of laws:
    size_law_rows, arrival_laws, key_dist_rows), as (name, shaped) in order: shaped when the
    list writes it NAME:PARAM, which a completion cannot offer alone."""
    rc, _, err = run_slap(args + ["--version"])
    m = re.search(pattern, err, re.M)
    check(rc == 2 and m is not None, "slap %s: %d %r" % (" ".join(args), rc, err))
    laws = []
    for name, shaped in re.findall(r"\b([a-z]+)(:[A-Z]+)?\b", m.group(1)):
        if name not in ("or", "the", "preset", "with") and name not in [n for n, _ in laws]:
            laws.append((name, shaped != ""))
    return laws


def man_entry(man, head):
    """The man page's entry of an option (.TP, its .BI line) up to the next .TP."""
    entry = re.search(r"^\.TP\n\.BI %s\n(.*?)^\.TP" % re.escape(head), man, re.M | re.S)
    check(entry is not None, "%s has no entry %s" % (PATHS.man, head))
    return entry.group(1)


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_laws_everywhere():
    """Every law slap takes by name (its tables', as its refusals list them) is in the man
    page's entry of its option (.B name, .BR name or .BI name:): the size laws and the preset
    in --key_size's, the laws of arrivals in --arrival's, the laws of keys in --key_dist's and
    sequential in --key_pattern's; the completion's --arrival offers every law of arrivals that
    takes no shape and its --key_dist every law of keys, and no other."""
    sizes = refused_laws(["--key_size=no-such-law"], r"no law of sizes: (.*)$")
    arrivals = refused_laws(["--arrival=no-such-law"], r"no law of arrivals: (.*)$")
    keys = refused_laws(["--key_dist=no-such-law"], r"expected (.*)$")
    pattern = refused_laws(["--key_pattern=all:no-such-law"], r"the law is (.*)$")
    check(len(sizes) >= 7 and len(arrivals) >= 7 and len(keys) >= 4,
          "too few laws: %r %r %r" % (sizes, arrivals, keys))
    walks = [name for name, _ in pattern if name not in [n for n, _ in keys]]
    check(len(walks) >= 1, "--key_pattern's laws add none to --key_dist's: %r" % pattern)
    with open(PATHS.man) as f:
        man = f.read()
    entries = [(r"\-\-key_size= sizes", sizes), (r"\-\-arrival= kind", arrivals),
               (r"\-\-key_dist= kind", keys), (r"\-\-key_pattern= op : law ,\fR...\fP",
                                                [(name, False) for name in walks])]
    for head, laws in entries:
        entry = man_entry(man, head)
        for name, _ in laws:
            check(re.search(r"^\.B[IR]? %s(?::|\s|$)" % re.escape(name), entry, re.M) is not None,
                  "%s's entry %s does not name %s" % (PATHS.man, head, name))
    completion_path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "completion", "slap.bash")
    with open(completion_path) as f:
        completion = f.read()
    for option, laws in (("arrival", arrivals), ("key_dist", keys)):
        offered = re.search(r'--%s\) echo "([^"]*)"' % option, completion)
        check(offered is not None, "the completion offers no --%s values" % option)
        plain = [name for name, shaped in laws if not shaped]
        check(sorted(offered.group(1).split()) == sorted(plain),
              "the completion's --%s offers %r, slap takes %r" % (option, offered.group(1), plain))


README_MAX_LINES = 350
LINK = re.compile(r"\]\(([^)\s]+)\)")


def outside_fences(text):
    """text's lines outside fenced code blocks (and not their fences), as (line number, line)."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if m:
            if fence is None:
                fence = m.group(1)[0] * len(m.group(1))
            elif m.group(1).startswith(fence):
                fence = None
            continue
        if fence is None:
            yield n, line


def markdown_prose(text):
    """text's lines outside fenced code blocks, with inline code spans blanked (a regular
    expression or a shell line in backticks is no link), as (line number, line)."""
    for n, line in outside_fences(text):
        yield n, re.sub(r"`+[^`]*`+", "``", line)


def github_anchors(path):
    """The anchors GitHub gives path's headings: the heading's text lower-cased, its links
    reduced to their text, every character but letters, digits, spaces, hyphens and
    underscores removed, spaces made hyphens; a repeated anchor gets -1, -2, ..."""
    with open(path) as f:
        text = f.read()
    anchors, seen = set(), {}
    for _, line in outside_fences(text):
        h = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if h is None:
            continue
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h.group(1)).lower()
        anchor = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
        if anchor in seen:
            seen[anchor] += 1
            anchors.add("%s-%d" % (anchor, seen[anchor]))
        else:
            seen[anchor] = 0
            anchors.add(anchor)
    return anchors


def doc_files():
    """The documentation whose links are checked: the README, CONTRIBUTING.md, src/README.md
    and every chapter of the guide (docs/*.md)."""
    docs = os.path.join(TOP, "docs")
    chapters = sorted(os.path.join(docs, name) for name in os.listdir(docs)
                      if name.endswith(".md"))
    return [PATHS.readme, os.path.join(TOP, "CONTRIBUTING.md"),
            os.path.join(TOP, "src", "README.md")] + chapters


def relative_links(path):
    """path's relative links, as (line number, link, the file it names, its anchor or None):
    absolute URLs (a scheme) are left out."""
    with open(path) as f:
        text = f.read()
    for n, line in markdown_prose(text):
        for link in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", link):
                continue
            target, _, anchor = link.partition("#")
            where = path if target == "" else os.path.normpath(
                os.path.join(os.path.dirname(path), target))
            yield n, link, where, anchor or None


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_links_resolve():
    """Every relative Markdown link of the README, CONTRIBUTING.md, src/README.md and the guide's
    chapters (docs/*.md) names a file or folder that exists, and its #anchor a heading of that
    file (GitHub's anchors); the README is at most README_MAX_LINES lines; every chapter of
    docs/ is linked from the guide's index, docs/README.md."""
    with open(PATHS.readme) as f:
        lines = f.read().count("\n")
    check(lines <= README_MAX_LINES, "%s is %d lines, more than %d: move the detail into a "
          "chapter of docs/" % (PATHS.readme, lines, README_MAX_LINES))
    anchors = {}
    bad = []
    for path in doc_files():
        shown = os.path.relpath(path, TOP)
        for n, link, where, anchor in relative_links(path):
            if not os.path.exists(where):
                bad.append("%s:%d: (%s): no such file %s" % (shown, n, link,
                                                           os.path.relpath(where, TOP)))
                continue
            if anchor is None:
                continue
            if not where.endswith(".md") or os.path.isdir(where):
                bad.append("%s:%d: (%s): an anchor into what is no Markdown file"
                           % (shown, n, link))
                continue
            if where not in anchors:
                anchors[where] = github_anchors(where)
            if anchor not in anchors[where]:
                bad.append("%s:%d: (%s): %s has no heading whose anchor is #%s"
                           % (shown, n, link, os.path.relpath(where, TOP), anchor))
    check(not bad, "links that lead nowhere:\n" + "\n".join(bad))
    index = os.path.join(TOP, "docs", "README.md")
    check(os.path.exists(index), "docs/ has no index, README.md")
    linked = {where for _, _, where, _ in relative_links(index)}
    docs = os.path.join(TOP, "docs")
    unlinked = [name for name in sorted(os.listdir(docs))
                if name.endswith(".md") and name != "README.md"
                and os.path.join(docs, name) not in linked]
    check(not unlinked, "chapters that docs/README.md does not link: %s" % ", ".join(unlinked))
    print("%d files, their links resolve; the README is %d lines" % (len(doc_files()), lines))


# ---------------------------------------------------------------- examples that are run
#
# Every command the README and the guide show (a ```sh block, or a ``` block whose first line
# is `$ command` followed by its output) carries a mark on the line before its fence:
#   <!-- example: runs -->                    the suite runs it against its own memcached
#   <!-- example: runs; may be absent: a, b --> ... and the shown lines named a:, b: may be
#                                              missing from this host's output
#   <!-- example: illustrative: WHY -->       shown, not run, for the reason given
# A block that runs holds only slap's commands (no shell: no pipes, redirections or $(...)).
# 127.0.0.1:11211 (or localhost:11211) is the suite's memcached, with UDP on its port;
# 127.0.0.1:11212 a second one. Each command runs in a directory of its own for at most
# EXAMPLE_SECONDS, and must exit 0. Its shown output's lines must be in slap's output, numbers
# aside: a `name: words` line by its name (the words are the run's verdicts), any other line
# by what precedes its first number (a table's rows by their label), any other line whole;
# lines of numbers alone (a histogram's rows) and `...` are not compared.

EXAMPLE_MARK = re.compile(r"^<!-- example: (runs(?:; may be absent: ([a-z_, ]+))?|"
                          r"illustrative: (\S.*)) -->$")
EXAMPLE_SECONDS = 60
SHELL_SYNTAX = re.compile(r"[|<>;&`]|\$\(")


def example_blocks(path):
    """path's command blocks, as (line of the fence, mark or None, [(command, shown output)])."""
    with open(path) as f:
        lines = f.read().split("\n")
    n = 0
    while n < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[n])
        if not m:
            n += 1
            continue
        end = n + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        body = lines[n + 1:end]
        prev = n - 1
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        mark = lines[prev].strip() if prev >= 0 and lines[prev].startswith("<!--") else None
        commands = []
        if m.group(1) == "sh":
            joined = []
            for line in body:
                if joined and joined[-1].endswith("\\"):
                    joined[-1] = joined[-1][:-1] + " " + line.strip()
                else:
                    joined.append(line.strip())
            commands = [(c, []) for c in joined if c and not c.startswith("#")]
        elif m.group(1) == "" and body and body[0].startswith("$ "):
            for line in body:
                if line.startswith("$ "):
                    commands.append((line[2:].strip(), []))
                else:
                    commands[-1][1].append(line)
        if commands:
            yield n + 1, mark, commands
        n = end + 1


def shown_key(line):
    """A shown output line as compared, or None when it is not compared: a `name: words` line
    by its name, a line with numbers by what precedes its first number, any other whole."""
    line = " ".join(re.sub(r"\d+(\.\d+)?", "#", line).split())
    m = re.match(r"^([a-z][a-z0-9_]*):( |$)", line)
    if m:
        return m.group(1) + ":"
    if "#" in line:
        line = line[:line.index("#")].strip()
    if line in ("", "...") or re.fullmatch(r"[\s.,:%\[\]()+-]*", line):
        return None
    return line


def run_example(command, shown, absent, addrs):
    """Runs one command of a block that runs; what is wrong with it, or None."""
    if SHELL_SYNTAX.search(re.sub(r"'[^']*'|\"[^\"]*\"", "", command)):
        return "uses the shell (a pipe, a redirection, $(...)): mark it illustrative"
    try:
        args = shlex.split(command, comments=True)
    except ValueError as e:
        return "cannot be split into words as the shell would (%s)" % e
    if not args or args[0] != "slap":
        return "is not slap's command: mark it illustrative"
    args = [re.sub(r"\b(127\.0\.0\.1|localhost):(11211|11212)\b",
                   lambda m: addrs[m.group(2)], a) for a in args[1:]]
    d = tempfile.mkdtemp(prefix="slap-example-")
    try:
        r = subprocess.run([PATHS.slap] + args, cwd=d, capture_output=True, text=True,
                           timeout=EXAMPLE_SECONDS, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "ran longer than %d s: make it shorter or mark it illustrative" % EXAMPLE_SECONDS
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if r.returncode != 0:
        return "exit status %d: %s" % (r.returncode, r.stderr.strip()[-500:])
    have = {shown_key(line) for line in r.stdout.split("\n")}
    missing = [line.strip() for line in shown if shown_key(line) is not None and
               shown_key(line) not in have and shown_key(line)[:-1] not in absent]
    if missing:
        return "its shown output has lines slap no longer prints:\n  " + "\n  ".join(missing)
    return None


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_examples_run():
    """Every command shown in the README and the guide either runs here, its shown output's
    lines found in what slap prints (numbers aside), or is marked illustrative with a reason
    (EXAMPLE_MARK). Two memcached, the first with UDP, stand for 127.0.0.1:11211 and :11212."""
    docs = os.path.join(TOP, "docs")
    paths = [PATHS.readme] + sorted(os.path.join(docs, n) for n in os.listdir(docs)
                                    if n.endswith(".md"))
    servers = [Memcached(udp=True), Memcached()]
    bad, ran = [], 0
    try:
        addrs = {"11211": servers[0].addr, "11212": servers[1].addr}
        for path in paths:
            for line, mark, commands in example_blocks(path):
                where = "%s:%d" % (os.path.relpath(path, TOP), line)
                m = EXAMPLE_MARK.match(mark or "")
                if m is None:
                    bad.append("%s: a command block without <!-- example: runs --> or "
                               "<!-- example: illustrative: WHY --> before it (%s)"
                               % (where, commands[0][0][:60]))
                    continue
                if m.group(3):
                    continue
                absent = {a.strip() for a in (m.group(2) or "").split(",") if a.strip()}
                for command, shown in commands:
                    wrong = run_example(command, shown, absent, addrs)
                    ran += 1
                    if wrong is not None:
                        bad.append("%s: %s: %s" % (where, command[:80], wrong))
    finally:
        for s in servers:
            s.stop()
    print("%d commands run" % ran)
    check(not bad, "examples that do not hold:\n" + "\n".join(bad))
