"""The source tree keeps its layers: includes run downward, the options stay in the command
line, and the layout is documented. (Calls are checked by the build's layer_check links.)"""
import os
import re

from harness import check
from harness import SAME_IN_EVERY_BUILD, no_time, release_only

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layers():
    """The layers from the bottom, as CMakeLists.txt's SLAP_LAYERS lists them."""
    with open(os.path.join(TOP, "CMakeLists.txt")) as f:
        m = re.search(r"set\(SLAP_LAYERS ([a-z ]+)\)", f.read())
    check(m is not None, "CMakeLists.txt sets no SLAP_LAYERS")
    return m.group(1).split()


# Layers below a layer that it still may not use: output and the exporters take what the engine
# measured as data (struct limits from judge, struct slap_stats from model), never the engine.
APART = {"output": ("engine",), "export": ("engine",), "store": ("engine",)}


def layer_files(layer):
    """A layer's sources and private headers (src/LAYER) and its public headers."""
    for folder in (os.path.join(TOP, "src", layer), os.path.join(TOP, "include", "slap", layer)):
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
            if name.endswith((".c", ".h")):
                yield os.path.join(folder, name)


def include_problems(path, layer, order):
    """What path includes against the rules: another layer's header only from below, in its
    public place; a private header only from beside it, never from a public header."""
    with open(path) as f:
        text = f.read()
    public = os.sep + "include" + os.sep in path
    for name in INCLUDE.findall(text):
        m = re.fullmatch(r"slap/([a-z]+)/[a-z0-9_]+\.h", name)
        if m is not None:
            if m.group(1) not in order:
                yield "%s includes %s, in no layer" % (path, name)
            elif order.index(m.group(1)) > order.index(layer):
                yield "%s (layer %s) includes %s from the layer above it, %s" % (
                    path, layer, name, m.group(1))
            elif m.group(1) in APART.get(layer, ()):
                yield "%s (layer %s) includes %s: %s may not use %s" % (
                    path, layer, name, layer, m.group(1))
        elif "/" in name:
            yield "%s includes %s, neither a layer's public header nor a private one" % (
                path, name)
        elif public:
            yield "%s is public but includes the private header %s" % (path, name)
        elif not os.path.exists(os.path.join(os.path.dirname(path), name)):
            yield "%s includes %s, which is not beside it in src/%s" % (path, name, layer)


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_layers_include_downward():
    """Every file of src/LAYER and include/slap/LAYER includes only its own layer's headers and
    those of the layers below; private headers only from beside them."""
    order = layers()
    check(sorted(os.listdir(os.path.join(TOP, "src"))) == sorted(order + ["README.md"]),
          "src/ holds other than the layers' folders and README.md: %s"
          % sorted(os.listdir(os.path.join(TOP, "src"))))
    problems = []
    for layer in order:
        for path in layer_files(layer):
            problems.extend(include_problems(path, layer, order))
    check(not problems, "\n".join(problems))


# The command line's layers, from the bottom: the options and their plans, the commands over
# results, the runs, and the dispatch. Below them no layer sees the options.
COMMAND_LINE = ("options", "commands", "run", "cli")


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_layers_options_in_cli():
    """No layer below the command line's sees struct slap_options: the options layer builds
    their plans."""
    order = layers()
    check(order[-len(COMMAND_LINE):] == list(COMMAND_LINE),
          "the command line's layers %r are not the top of %r" % (COMMAND_LINE, order))
    seen = []
    for layer in order[:-len(COMMAND_LINE)]:
        for path in layer_files(layer):
            with open(path) as f:
                if re.search(r"\bslap_options\b|slap/(%s)/" % "|".join(COMMAND_LINE), f.read()):
                    seen.append(path)
    check(not seen, "below the command line, these see the options: %s" % ", ".join(seen))


# The engine's words to a stream, and the calls that write one: the engine tells events
# (struct run_event) and output/ words them.
STDIO_NAMES = re.compile(r"\b(stderr|stdout)\b|\b(printf|vprintf|puts|putchar|perror)\s*\(")
STREAM_WRITES = re.compile(r"\b(fprintf|vfprintf|fputs|fputc|putc|fwrite|fflush)\s*\(")
# The layers that write no stream: the engine, and the judgement of what limited a run (its
# words and lines are output's limits_words.c).
SILENT_LAYERS = ("judge", "engine")


def code_only(text):
    """text without its comments and the contents of its string and character literals (a
    comment leaves its line breaks, so lines keep their numbers)."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda m: ("\n" * m.group(0).count("\n") if m.group(0)[0] == "/"
                             else m.group(0)[0] * 2), text, flags=re.S)


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_layers_engine_prints_nothing():
    """The engine and the judge format no message and write no stream: no stderr or stdout, no
    printf to them, no fprintf, fputs or fwrite anywhere."""
    seen = []
    for path in (p for layer in SILENT_LAYERS for p in layer_files(layer)):
        with open(path) as f:
            code = code_only(f.read())
        for n, line in enumerate(code.split("\n"), 1):
            m = STDIO_NAMES.search(line) or STREAM_WRITES.search(line)
            if m is not None:
                seen.append("%s:%d: %s" % (os.path.relpath(path, TOP), n, m.group(0)))
    check(not seen, "the engine writes to a stream (tell a struct run_event instead):\n"
          + "\n".join(seen))


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_layers_described():
    """src/README.md says what every layer owns and may use: a section for every layer's
    folder, naming each of its source files. (The README links src/README.md and keeps no
    table of the tree of its own.)"""
    with open(os.path.join(TOP, "src", "README.md")) as f:
        guide = f.read()
    for layer in layers():
        section = re.search(r"^#+ [^\n]*`%s/`[^\n]*\n(.*?)(?=^#+ |\Z)" % layer, guide, re.M | re.S)
        check(section is not None, "src/README.md has no section on %s/" % layer)
        for path in layer_files(layer):
            name = os.path.basename(path)
            if name.endswith(".c") and "`%s`" % name not in section.group(1):
                check(False, "src/README.md's section on %s/ does not name %s" % (layer, name))



def include_graph(order):
    """Each file's name without its ending (LAYER/NAME: a .c and its header are one node) and
    the others it includes, "slap/LAYER/NAME.h" or a private "NAME.h" beside it, each with the
    file that includes it."""
    graph = {}
    for layer in order:
        for path in layer_files(layer):
            node = "%s/%s" % (layer, os.path.splitext(os.path.basename(path))[0])
            edges = graph.setdefault(node, {})
            with open(path) as f:
                text = f.read()
            for name in INCLUDE.findall(text):
                m = re.fullmatch(r"slap/([a-z]+)/([a-z0-9_]+)\.h", name)
                other = ("%s/%s" % m.groups() if m is not None else
                         "%s/%s" % (layer, os.path.splitext(name)[0]) if "/" not in name else None)
                if other is not None and other != node:
                    edges.setdefault(other, os.path.relpath(path, TOP))
    return graph


def module_graph(order):
    """The modules (a .c and its header of the same name) and the modules each includes: a
    header with no .c of its name (transport.h, lane.h) is no module, and what it includes
    counts for each module that includes it."""
    files = include_graph(order)
    modules = {node for node in files
               if os.path.exists(os.path.join(TOP, "src", node + ".c"))}
    graph = {}
    for module in modules:
        reached, stack = {}, [(module, None)]
        while stack:
            node, via = stack.pop()
            for other, path in files.get(node, {}).items():
                step = via or path
                if other in modules:
                    if other != module:
                        reached.setdefault(other, step)
                elif other not in reached:
                    reached[other] = step
                    stack.append((other, step))
        graph[module] = {m: p for m, p in reached.items() if m in modules}
    return graph


def module_circles(graph):
    """The modules in circles (each that includes, through others, itself), as sets of modules
    that all reach one another (a circle, or circles sharing modules), each sorted."""
    reach = {}
    for module in graph:
        seen, stack = set(), [module]
        while stack:
            for other in graph.get(stack.pop(), {}):
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        reach[module] = seen
    circles = {tuple(sorted(m for m in reach[module] if module in reach[m]))
               for module in graph if module in reach[module]}
    return sorted(circles)


# Circles of modules not broken yet, each to go by moving what both share below both; the case
# fails when one is gone (strike it here) as when a new one comes.
KNOWN_CIRCLES = set()  # none: the last three went with issue 44


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_layers_no_module_circles():
    """No module (a .c and its header of the same name) includes, through others, itself:
    modules include one another in one direction, in every layer (net's conn and stamp each
    included the other's header), but for KNOWN_CIRCLES."""
    graph = module_graph(layers())
    check(len(graph) > 100 and "net/conn" in graph and "net/stamp" in graph["net/conn"],
          "the modules are not found: %d, %r" % (len(graph), graph.get("net/conn")))
    circles = module_circles(graph)
    new = [", ".join("%s includes %s (%s)" % (m, n, graph[m][n]) for m in ring
                     for n in ring if n in graph[m])
           for ring in circles if ring not in KNOWN_CIRCLES]
    check(not new, "circles of modules:\n" + "\n".join(new))
    gone = sorted(KNOWN_CIRCLES - set(circles))
    check(not gone, "KNOWN_CIRCLES lists circles there are no more: %r" % gone)


def source_files():
    """The C sources and headers the formatter holds: src, include, tests and scripts."""
    for top in ("src", "include", "tests", "scripts"):
        for folder, dirs, names in os.walk(os.path.join(TOP, top)):
            dirs[:] = sorted(d for d in dirs if d != "fixtures")
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    yield os.path.join(folder, name)


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_docs_source_formatted():
    """Every C file is as .clang-format lays it out (clang-format --dry-run -Werror): the
    formatter was applied once, and a file it would change fails here, named."""
    import subprocess
    files = list(source_files())
    check(len(files) > 200, "only %d C files found under %s" % (len(files), TOP))
    r = subprocess.run(["clang-format", "--dry-run", "-Werror", "--style=file"] + files,
                       cwd=TOP, capture_output=True, text=True)
    named = sorted({line.split(":")[0] for line in r.stderr.splitlines() if ": error:" in line})
    check(r.returncode == 0, "not as .clang-format lays them out (run clang-format -i on them): "
          + (", ".join(os.path.relpath(f, TOP) for f in named) or r.stderr[-2000:]))

