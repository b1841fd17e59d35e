"""The documentation keeps up with the options."""
import re

from harness import (check, PATHS, run_slap)


def documents(text, dashes, name, hyphen):
    """Whether text has the option itself: dashes + name, not the start of a longer
    name (--tls of --tls_ca, or of --tls-ca when hyphen is "-")."""
    return re.search(re.escape(dashes + name) + r"(?![a-z0-9_]|%s[a-z0-9])" % re.escape(hyphen),
                     text) is not None


def case_docs_list_every_option():
    """Every long option of --help is in the man page as roff writes it (\\-\\-name, every
    hyphen escaped) and in the README as --name."""
    rc, out, err = run_slap(["--help"])
    check(rc == 0, "--help exit status %d" % rc)
    names = sorted(set(re.findall(r"--([a-z0-9_]+(?:-[a-z0-9_]+)*)", out)))
    check(len(names) > 40, "too few options in --help: %r" % names)
    with open(PATHS.man) as f:
        man = f.read()
    with open(PATHS.readme) as f:
        readme = f.read()
    for name in names:
        check(documents(man, r"\-\-", name.replace("-", r"\-"), r"\-"),
              "%s does not document --%s" % (PATHS.man, name))
        check(documents(readme, "--", name, "-"),
              "%s does not document --%s" % (PATHS.readme, name))


def case_docs_memslap_options():
    """Every long option of `slap memslap --help` is in the man page (\\-\\-name) and the README
    (--name), and the man page has the section on memslap's command line."""
    rc, out, err = run_slap(["memslap", "--help"])
    check(rc == 0, "memslap --help exit status %d" % rc)
    names = sorted(set(re.findall(r"--([a-z0-9_]+(?:-[a-z0-9_]+)*)", out)))
    check(len(names) >= 18, "too few options in memslap's --help: %r" % names)
    with open(PATHS.man) as f:
        man = f.read()
    with open(PATHS.readme) as f:
        readme = f.read()
    check(".SH MEMSLAP'S COMMAND LINE" in man, "the man page has no section on memslap")
    for name in names:
        check(documents(man, r"\-\-", name.replace("-", r"\-"), r"\-"),
              "%s does not document memslap's --%s" % (PATHS.man, name))
        check(documents(readme, "--", name, "-"),
              "%s does not document memslap's --%s" % (PATHS.readme, name))
