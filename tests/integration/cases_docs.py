"""The documentation keeps up with the options."""
import os
import re

from harness import (check, run_slap)


def case_docs_list_every_option():
    """Every long option of --help is documented in the man page and the README."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rc, out, err = run_slap(["--help"])
    check(rc == 0, "--help exit status %d" % rc)
    names = sorted(set(re.findall(r"--([a-z_0-9]+)", out)))
    check(len(names) > 40, "too few options in --help: %r" % names)
    man = open(os.path.join(top, "man", "slap.1")).read().replace("\\", "")
    readme = open(os.path.join(top, "README.md")).read()
    for name in names:
        check(name in man, "man/slap.1 does not document --%s" % name)
        check(name in readme, "README.md does not document --%s" % name)
