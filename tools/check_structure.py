#!/usr/bin/env python3
"""check_structure.py -- the structure check of clhgemm (CTest `structure`).

Checks what the compiler and the tests do not see, so that the layout the project chose (one
folder of src/ per layer, docs/ARCHITECTURE.md) and the docs' account of it cannot decay
unnoticed. (a) to (c) read the .c and .h files of src/, tools/, bench/ and include/ (not tests/,
not build folders); (d) to (f) read the text of the whole tree.

 (a) No cycles between modules. A module is a .c file and the .h of the same basename in the
     same folder (a lone .c or .h is a module by itself). Module A uses module B when a file of
     A writes `#include "x.h"` that resolves to a header of B (relative to the including file's
     folder first, then its top folder such as bench/, then src/, include/ and tools/, the
     include paths of the build; <...> includes are the system's and ignored), or
     when a .c file of A calls, inside a function body, a non-static function that exactly one
     other module defines (a name A defines itself, or that several modules define, ties
     nothing; an OpenCL API name defined by an interposer such as bench/prof/clprof.c ties nothing
     either). Every strongly connected component of more than one module is a cycle: modules
     that cannot be understood, tested or replaced one without the other. Each is printed with
     the names that tie each of its edges.
 (b) The layer order of src/: base < device < kernels < cpu < tuning < core < host < lapack <
     blas < lapack_dropin. A folder may use itself and any lower folder, never a higher one;
     the two drop-ins (blas, lapack_dropin: PEERS) never use each other; src/ may use nothing
     outside src/ and include/, and include/ (the public header, which anyone may use) nothing
     else.
 (c) Sizes: line counts per folder and per file, and function lengths (from the definition
     line to the closing brace). A function of src/ longer than --max-function lines (100), or
     of the programs in tools/ and bench/ longer than --max-function-programs lines (150), is
     a problem unless it is named in --allow, so that a limit can be made strict one function
     at a time. The programs get more room: a main that reads its options and runs its steps
     in order is longer than a library function, not harder to follow.
 (d) Every path the text names is in the tree. The text: every *.md file, every CMakeLists.txt
     and cmake/*.cmake(.in) whole, and the comments of the sources under src/, tools/, bench/,
     tests/, include/, cl/, examples/ and cmake/ (C: .c .h .cl .h.in; # in .py .sh .R .supp and
     the docstrings of .py; % in .m) and of .ci/run. A token is a run of [A-Za-z0-9_.+~/-] (with
     {a,b} alternatives, expanded), without a trailing . , ; or :, and ${PROJECT_SOURCE_DIR}/,
     ${CMAKE_SOURCE_DIR}/ or ${CMAKE_CURRENT_SOURCE_DIR}/ replaced by the folder it stands for.
     It names a file of the repository, and that file or folder must exist, when it is
       - a path that starts with a top folder of the tree (src/, docs/, bench/, tools/, tests/,
         cl/, cmake/, include/, examples/, tuning/): from the root, as a file, a folder, or a
         module named without its .c / .h (src/host/plan);
       - a path that starts with the name of a folder below the root (host/, core/, common/,
         data/, ...) and ends in a file name with an extension of c h cl md py sh cmake txt json
         in R m supp: some path of the tree must end with it (host/plan.c is src/host/plan.c,
         gemm/bench_gemm.c bench/gemm/bench_gemm.c); tuning/tuning.h, whose first folder is
         both a top folder and a folder of src/, may be either;
       - a bare file name <name>.c, .h, .cl, .md, .py, .sh or .cmake: some file of the tree must
         have that name, or it is one the build makes (<name>.in of the tree, GENERATED) or
         another project's or the reader's (EXTERNAL); one that starts with _ (_problem.c after
         bench_level3_opts.c) is short for a sibling's name: some file's name must end with it.
     Not repository paths, so never checked: URLs; `git show <rev>:path` references (history,
     intentionally not in the tree) and a folder of the performance history named by itself
     (2026-11-27-h100-.../); tokens with <...>, *, ?, or $ (placeholders, other variables:
     $OUT/...); absolute paths (/usr/...), ../ paths (../shared/...), ~ paths; build outputs
     (a first folder build*: build/blas/libblas.so.3); one-letter placeholders (x.h); a name
     right after "not" ("its own name, not bench_host.h"); and any other token (host/device,
     x86-64/v3, module names without an extension such as host/entry, which the diagram check
     (f) reads instead).
 (e) No history words in place of reasons: "seed N", "issue N", "session N" (also "issue #N",
     "Nth session", an ordinal word before "session", and a seed's number written with an x
     for its last digit), case-insensitive, in the same files
     and with the same exceptions as (d) (URLs, history paths and folders), but in the whole
     text of the sources (code as well as comments). Say the design reason, or cite the paper
     by its authors and title (docs/ARCHITECTURE.md, "The papers the design follows").
 (f) The dependency diagram of docs/ARCHITECTURE.md ("Modules and their dependencies") draws
     no false arrow: each `A ─► B` it draws is an edge of (a)'s graph (diagram_arrows says how
     the block is read).

What it reads is C as this project writes it: a function definition starts at column 0 with its
return type and `name(` and has a `{` body; calls are `name(` tokens inside bodies once
comments, strings and preprocessor lines are blanked. Calls made inside macros are not seen.

Prints the report (unless --quiet) and the problems, each stale path and history word as
file:line, then `structure: OK` or `structure: N problem(s)`; exits 1 when there is a problem,
0 otherwise. --graph FOLDER also prints the module graph of one folder.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

SCANNED = ("src", "tools", "bench", "include")
# where the build looks for "x.h" after the including file's folder: the library's private
# headers, the public one, and tools/ (cli.h, which bench/ shares through clhgemm_cli)
INCLUDE_PATHS = ("src", "include", "tools")
OPENCL_API = re.compile(r"cl[A-Z]")
LAYERS = ("base", "device", "kernels", "cpu", "tuning", "core", "host", "lapack", "blas",
          "lapack_dropin")  # lowest first
# folders of one rank in all but name: each is a library of its own (the drop-ins libblas.so.3 and
# liblapack.so.3), so neither may use the other although the order puts one above
PEERS = ("blas", "lapack_dropin")
KEYWORDS = {
    "if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "goto",
    "defined", "alignof", "_Alignof", "_Generic", "_Static_assert", "static_assert",
    "__attribute__", "typeof", "__typeof__", "__builtin_offsetof", "offsetof",
}
NOT_A_DEFINITION = re.compile(r"\b(typedef|struct|union|enum)\b[^(]*$|=")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


# ---- reading C ----------------------------------------------------------------------------

def blank_comments(text, strings_too):
    """text with comments (and, if strings_too, the insides of string and character literals)
    replaced by spaces; newlines are kept, so line numbers still hold."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if strings_too and j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blank_preprocessor(text):
    """Preprocessor lines (with their continuations) replaced by empty lines."""
    lines, cont = text.split("\n"), False
    for k, line in enumerate(lines):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def functions(code):
    """Top-level function definitions of blanked code: [(name, static, first line, last line,
    body start, body end)]."""
    found, depth, head_start, i = [], 0, 0, 0
    while i < len(code):
        c = code[i]
        if c == "{" and depth == 0:
            head = code[head_start:i]
            close = find_body_end(code, i)
            m = definition_head(code, head_start, head)
            if m:
                found.append((m[0], m[1], m[2], line_of(code, close), i + 1, close))
            i, head_start = close + 1, close + 1
            continue
        if c in ";}" and depth == 0:
            head_start = i + 1
        depth += c == "{"
        depth -= c == "}"
        i += 1
    return found


def find_body_end(code, open_pos):
    depth = 0
    for j in range(open_pos, len(code)):
        depth += code[j] == "{"
        depth -= code[j] == "}"
        if depth == 0:
            return j
    return len(code) - 1


def definition_head(code, start, head):
    """(name, static, line) when `head` (the text before a top-level `{`) is a function's."""
    if NOT_A_DEFINITION.search(head) or not head.rstrip().endswith(")"):
        return None
    m = re.search(r"([A-Za-z_]\w*)\s*\(", head)
    if not m or m.group(1) in KEYWORDS:
        return None
    name_pos = start + m.start(1)
    bol = code.rfind("\n", 0, name_pos) + 1
    prefix = code[bol:name_pos]
    # at column 0, with its return type on the same line
    if not prefix or prefix[0].isspace() or not re.search(r"[A-Za-z_]", prefix):
        return None
    return m.group(1), bool(re.search(r"\bstatic\b", head[: m.start(1)])), line_of(code, name_pos)


# ---- the tree -----------------------------------------------------------------------------

class Source:
    def __init__(self, root, rel):
        self.rel = rel
        self.folder = os.path.dirname(rel)
        self.module = os.path.splitext(rel)[0]
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            self.text = f.read()
        self.lines = self.text.count("\n") + (not self.text.endswith("\n") and self.text != "")
        self.includes = []  # (line, written name)
        for m in INCLUDE.finditer(blank_comments(self.text, strings_too=False)):
            self.includes.append((line_of(self.text, m.start()), m.group(1)))
        self.funcs, self.calls = [], {}  # calls: name -> first line
        if rel.endswith(".c"):
            code = blank_preprocessor(blank_comments(self.text, strings_too=True))
            self.funcs = functions(code)
            for _, _, _, _, b0, b1 in self.funcs:
                for m in CALL.finditer(code, b0, b1):
                    if m.group(1) not in KEYWORDS:
                        self.calls.setdefault(m.group(1), line_of(code, m.start()))


def read_tree(root):
    files = []
    for top in SCANNED:
        for dirpath, dirnames, names in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "build")))
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    files.append(Source(root, os.path.relpath(os.path.join(dirpath, name), root)))
    return files


def module_label(module, by_module):
    exts = sorted(os.path.splitext(s.rel)[1][1:] for s in by_module[module])
    return module + "." + exts[0] if len(exts) == 1 else module + ".{" + ",".join(exts) + "}"


def build_graph(root, files):
    """edges[A][B] = [(file, line, what)], plus the includes that name no file of the tree."""
    by_rel = {s.rel: s for s in files}
    definers = defaultdict(set)  # non-static function name -> modules
    for s in files:
        for name, static, *_ in s.funcs:
            # an OpenCL API name (clXxx) defined here is an interposer's (bench/prof/clprof.c, an
            # LD_PRELOAD library): the calls of the library go to the API, not to it
            if not static and not OPENCL_API.match(name):
                definers[name].add(s.module)
    own = defaultdict(set)  # module -> every function name it defines
    for s in files:
        own[s.module].update(f[0] for f in s.funcs)
    edges, unresolved = defaultdict(lambda: defaultdict(list)), []
    for s in files:
        for line, written in s.includes:
            # the including file's folder, its top folder (bench/ sources name the folders they
            # share: "common/bench_util.h"), then the build's include paths
            for base in (s.folder, s.rel.split("/")[0]) + INCLUDE_PATHS:
                target = os.path.normpath(os.path.join(base, written))
                if target in by_rel:
                    break
            else:
                unresolved.append((s.rel, line, written))
                continue
            if by_rel[target].module != s.module:
                edges[s.module][by_rel[target].module].append((s.rel, line, '#include "%s"' % written))
        for name, line in sorted(s.calls.items(), key=lambda kv: kv[1]):
            mods = definers.get(name, ())
            if name in own[s.module] or len(mods) != 1:
                continue
            (target,) = mods
            edges[s.module][target].append((s.rel, line, name + "()"))
    return edges, unresolved


def cycles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(1000, 4 * len(nodes)))
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out)


def layer(module):
    """(rank, folder) of a module of src/; None outside src/."""
    parts = module.split("/")
    if parts[0] != "src":
        return None
    folder = parts[1] if len(parts) > 2 else "(src/)"
    return (LAYERS.index(folder) if folder in LAYERS else -1), folder


def layer_problems(edges, label):
    problems = []
    for a in sorted(edges):
        for b in sorted(edges[a]):
            la, lb, top_a, top_b = layer(a), layer(b), a.split("/")[0], b.split("/")[0]
            if la is not None and la[0] < 0:
                why = "%s is in no layer folder (%s)" % (a, ", ".join(LAYERS))
            elif la is not None and lb is not None and lb[0] > la[0]:
                why = "layer %s uses the higher layer %s" % (la[1], lb[1])
            elif (la is not None and lb is not None and la[1] != lb[1] and la[1] in PEERS
                  and lb[1] in PEERS):
                why = "the drop-in %s uses the drop-in %s" % (la[1], lb[1])
            elif la is not None and top_b not in ("src", "include"):
                why = "src/ uses %s/" % top_b
            elif top_a == "include" and top_b != "include":
                why = "the public header uses %s/" % top_b
            else:
                continue
            for rel, line, what in edges[a][b]:
                problems.append("%s:%d: %s: %s (%s)" % (rel, line, why, what, label(b)))
    return problems


# ---- the text: paths that name the tree, and no history words ------------------------------

# what (d) and (e) read: the whole of these, and the comments of the sources below
TEXT_WHOLE = (r".*\.md", r"(.*/)?CMakeLists\.txt", r"cmake/[^/]*\.cmake(\.in)?")
COMMENT_TOPS = ("src", "tools", "bench", "tests", "include", "cl", "examples", "cmake")
COMMENT_SYNTAX = {".c": "c", ".h": "c", ".cl": "c", ".h.in": "c", ".py": "py", ".sh": "hash",
                  ".R": "hash", ".supp": "hash", ".m": "percent"}
SCRIPTS = {".ci/run": "hash"}  # scripts without an extension
# a bare name (no folder) with one of these extensions must be a file of the tree; a path that
# starts with a folder below the root must end in a file name with one of FILE_EXT's
BARE_NAME = re.compile(r"[A-Za-z0-9_+-][\w.+-]*\.(c|h|cl|md|py|sh|cmake)")
FILE_EXT = re.compile(r"\.(c|h|cl|md|py|sh|cmake|txt|json|in|R|m|supp)$")
# bare names of files that are not the project's: other projects' headers and CMake config,
# and the reader's own program of README's example
EXTERNAL = {"cblas.h", "f77blas.h", "cl.h", "cl_ext.h", "mpi.h", "OpenBLASConfig.cmake", "app.c"}
# the build's files that no <name>.in of the tree makes (configure_file): embed_kernels.cmake's
GENERATED = {"kernels_embedded.c"}
URL = re.compile(r"\b[A-Za-z][\w+.-]*://[^\s`'\"<>)\]]+|\bwww\.[^\s`'\"<>)\]]+")
# `git show REV:PATH`: a path of the history, not of the tree
HISTORY_PATH = re.compile(r"(?:\b[0-9a-f]{7,40}|\bREV|\bHEAD[~^0-9]*|<[^<>\s]*>):"
                          r"[^\s`'\"<>)\],;]+")
TOKEN = re.compile(r"(?:[\w.+~/-]|\{[\w.,+/-]*\}|<[^<>\s]*>|\$\{?\w+\}?|\*)+")
# the source tree in CMake (CMAKE_CURRENT_LIST_DIR is not: in an installed config it is the
# install's folder)
SOURCE_VARS = re.compile(
    r"^\$\{(PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|CMAKE_CURRENT_SOURCE_DIR)\}/")
ORDINAL = (r"(?:(?:twenty|thirty|forty)-)?(?:first|second|third|fourth|fifth|sixth|seventh|"
           r"eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|"
           r"seventeenth|eighteenth|nineteenth|twentieth|thirtieth|fortieth)")
HISTORY_WORDS = re.compile(
    r"(?<![\w-])(?:seed|issue|session)s?[ _-]?#?\s?0*\d+[a-z]?\b"
    r"|(?<![\w-])seeds?[ _-]?0*\d*x\b"
    r"|\b(?:\d+(?:st|nd|rd|th)|" + ORDINAL + r")[ -]session\b", re.I)
# a folder of the performance history (docs/perf/<date>-..., removed from the tree: cited as
# `git show <rev>:docs/perf/...`, then by its folder name alone)
HISTORY_FOLDER = re.compile(r"(?<![\w/-])\d{4}-\d\d-\d\d-[\w.-]*/[^\s`'\"<>)\],;]*")


def text_files(root):
    """[(rel, syntax)]: syntax None for a file read whole, else its comment syntax."""
    whole = re.compile("|".join("(?:%s)" % w for w in TEXT_WHOLE) + "$")
    out = []
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "build")))
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            ext = ".h.in" if name.endswith(".h.in") else os.path.splitext(name)[1]
            if whole.match(rel):
                out.append((rel, None))
            elif rel.split("/")[0] in COMMENT_TOPS and "/" in rel and ext in COMMENT_SYNTAX:
                out.append((rel, COMMENT_SYNTAX[ext]))
    out += [(rel, syn) for rel, syn in sorted(SCRIPTS.items())
            if os.path.isfile(os.path.join(root, rel))]
    return out


def skip_string(text, i):
    """The index past the string literal that opens at text[i] (it ends at its line's end)."""
    j = i + 1
    while j < len(text) and text[j] not in (text[i], "\n"):
        j += 2 if text[j] == "\\" else 1
    return j + 1


def comments_only(text, syntax):
    """text with everything but comments replaced by spaces (newlines kept). c: /* */ and //,
    string literals skipped; py: # and triple-quoted strings (the docstrings); hash: # at the
    start of a line or after a blank (not $# or ${#x}); percent: % or # likewise."""
    keep = [False] * len(text)
    i, n = 0, len(text)
    opener = "%#" if syntax == "percent" else "#"
    while i < n:
        j = None
        if syntax == "c":
            if text.startswith("/*", i):
                j = text.find("*/", i + 2)
                j = n if j < 0 else j + 2
            elif text.startswith("//", i):
                j = text.find("\n", i)
            elif text[i] in "\"'":
                i = skip_string(text, i)
                continue
        elif syntax == "py" and text.startswith(('"' * 3, "'" * 3), i):
            j = text.find(text[i:i + 3], i + 3)
            j = n if j < 0 else j + 3
        elif syntax == "py" and text[i] in "\"'":
            i = skip_string(text, i)
            continue
        elif syntax != "c" and text[i] in opener and (i == 0 or text[i - 1] in " \t\n"):
            j = text.find("\n", i)
        if j is None:
            i += 1
            continue
        j = n if j < 0 else j
        for k in range(i, j):
            keep[k] = True
        i = j
    return "".join(c if keep[k] or c == "\n" else " " for k, c in enumerate(text))


def expand_braces(token):
    m = re.search(r"\{([^{}]*)\}", token)
    if not m:
        return [token]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(token[: m.start()] + alt + token[m.end():])
    return out


class Tree:
    """The files and folders of the tree (hidden and build* folders left out)."""

    def __init__(self, root):
        self.paths, self.names, self.folder_names = set(), set(), set()
        self.tops, self.deep_names = set(), set()  # folder names at the root, and below it
        for dirpath, dirnames, names in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "build"))]
            rel_dir = os.path.relpath(dirpath, root)
            for d in dirnames:
                self.paths.add(os.path.normpath(os.path.join(rel_dir, d)))
                self.folder_names.add(d)
                (self.tops if rel_dir == "." else self.deep_names).add(d)
            for name in names:
                self.paths.add(os.path.normpath(os.path.join(rel_dir, name)))
                self.names.add(name)
        parts = [p.split("/") for p in self.paths]
        self.tails = {"/".join(q[k:]) for q in parts for k in range(len(q))}

    def has(self, rel):
        rel = os.path.normpath(rel)
        return any(rel + ext in self.paths for ext in ("", ".c", ".h"))

    def has_tail(self, tail):
        tail = os.path.normpath(tail)
        return any(tail + ext in self.tails for ext in ("", ".c", ".h"))


def stale_path(token, rel, tree):
    """Why `token`, read in file `rel`, names no file of the tree; None when it names one, or
    is not a repository path (see (d) in the module's docstring)."""
    token = token.rstrip(".,;:")
    m = SOURCE_VARS.match(token)
    if m:
        base = os.path.dirname(rel) if "CURRENT" in m.group(1) else ""
        token = os.path.normpath(os.path.join(base, token[m.end():]))
    if token.startswith("./"):
        token = token[2:]
    if (not token or re.search(r"[<>*?$]", token) or token.startswith(("/", "~", "..", "-"))
            or "//" in token or token.split("/")[0].lower().startswith("build")):
        return None
    if "/" in token:
        first, last = token.split("/")[0], token.rstrip("/").split("/")[-1]
        # from the root where it starts with a top folder; else (or also, where a folder
        # below has the same name: tuning/ and src/tuning/) the end of a path of the tree
        below = first in tree.folder_names - tree.tops or (
            first in tree.tops and first in tree.deep_names)
        bad = []
        for t in expand_braces(token):
            if first in tree.tops and tree.has(t):
                continue
            if below and FILE_EXT.search(last) and tree.has_tail(t):
                continue
            if first in tree.tops or (below and FILE_EXT.search(last)):
                bad.append(t)
        if not bad:
            return None
        return ("%s is not in the tree" if first in tree.tops else
                "no path of the tree ends in %s") % ", ".join(bad)
    bad = [t for t in expand_braces(token) if BARE_NAME.fullmatch(t) and t not in tree.names
           and t not in EXTERNAL and t not in GENERATED and t + ".in" not in tree.names
           and not re.fullmatch(r"[a-z]\.\w+", t)  # x.h: a placeholder
           and not (t.startswith("_") and any(n.endswith(t) for n in tree.names))]
    return "no file of the tree is named %s" % ", ".join(bad) if bad else None


def blank(pattern, text):
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def text_problems(root, tree):
    """(d) stale paths and (e) history words, as 'file:line: ...' lines."""
    problems = []
    for rel, syntax in text_files(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            whole = f.read()
        for pattern in (URL, HISTORY_PATH, HISTORY_FOLDER):  # the exceptions of both rules
            whole = blank(pattern, whole)
        text = whole if syntax is None else comments_only(whole, syntax)
        for m in TOKEN.finditer(text):
            if re.search(r"\bnot[\s*#%]+$", text[max(0, m.start() - 16):m.start()], re.I):
                continue  # "(not bench_host.h)": a name said not to be the file's
            why = stale_path(m.group(0), rel, tree)
            if why:
                problems.append("%s:%d: stale path %s: %s"
                                % (rel, line_of(text, m.start()), m.group(0).rstrip(".,;:"), why))
        for m in HISTORY_WORDS.finditer(whole):  # the words in code as well as in comments
            problems.append("%s:%d: \"%s\": say the design reason (or cite the paper) instead"
                            % (rel, line_of(whole, m.start()), m.group(0)))
    return problems


# ---- the dependency diagram of docs/ARCHITECTURE.md -----------------------------------------

DIAGRAM_DOC, DIAGRAM_HEADING = "docs/ARCHITECTURE.md", "## Modules and their dependencies"
ARROW = "─►"


def strip_notes(line):
    """line without its (notes), nested ones included."""
    out, depth = [], 0
    for c in line:
        depth += c == "("
        if depth == 0:
            out.append(c)
        depth -= c == ")" and depth > 0
    return "".join(out)


def diagram_arrows(root):
    """[(line, folder, A, B)]: the arrows of the first fenced block after DIAGRAM_HEADING. A
    line that starts with `<folder>/` names the folder of src/ its names are in (until the next
    such line); each `;`-separated chain `G1 ─► G2 ─► ...` of comma-separated groups says that
    every name of a group uses every name of the next; `x` is src/<folder>/x, `<f>/x` is
    src/<f>/x, `<f>/` any module of src/<f>/; (notes) are not names. None when the document or
    its diagram is missing."""
    path = os.path.join(root, DIAGRAM_DOC)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    try:
        start = lines.index(DIAGRAM_HEADING)
        first = next(k for k in range(start, len(lines)) if lines[k].startswith("```"))
        last = next(k for k in range(first + 1, len(lines)) if lines[k].startswith("```"))
    except (ValueError, StopIteration):
        return None
    arrows, folder = [], None
    for k in range(first + 1, last):
        text = strip_notes(lines[k]).strip()
        m = re.match(r"([a-z]\w*)/\s+(.*)$", text)
        if m:
            folder, text = m.group(1), m.group(2)
        if ARROW not in text or folder is None:
            continue
        for chain in text.split(";"):
            groups = [[n.strip() for n in g.split(",") if n.strip()] for g in chain.split(ARROW)]
            for ga, gb in zip(groups, groups[1:]):
                for a in ga:
                    for b in gb:
                        arrows.append((k + 1, folder, a, b))
    return arrows


def diagram_problems(root, edges, by_module):
    """Each arrow of the diagram that is not a dependency of the graph (a direct one: A includes
    B's header or calls a function that only B defines), or names no module."""
    arrows = diagram_arrows(root)
    if arrows is None:
        return ["%s: no diagram after '%s'" % (DIAGRAM_DOC, DIAGRAM_HEADING)], 0
    problems = []

    def modules(folder, name):
        if not re.fullmatch(r"[a-z]\w*(/(\w+)?)?", name):
            return None
        rel = "src/" + (name if "/" in name else folder + "/" + name)
        if rel.endswith("/"):
            return [m for m in by_module if m.startswith(rel)] or None
        return [rel] if rel in by_module else None

    for line, folder, a, b in arrows:
        ma, mb = modules(folder, a), modules(folder, b)
        where = "%s:%d: %s %s %s" % (DIAGRAM_DOC, line, a, ARROW, b)
        if ma is None or mb is None:
            problems.append("%s: %s names no module of src/" % (where, a if ma is None else b))
        elif not any(y in edges.get(x, ()) for x in ma for y in mb):
            problems.append("%s: not a dependency (no include of its header, no call of a "
                            "function only it defines)" % where)
    return problems, len(arrows)


def print_graph(folder, edges, by_module, say):
    """The module graph of one folder (src/host, tools, ...): each module's uses inside the
    folder, then the other folders it uses."""
    folder = folder.rstrip("/")
    mods = sorted(m for m in by_module if os.path.dirname(m) == folder)
    if not mods:
        say("graph: no module in %s/" % folder)
        return
    say("module graph of %s/ (A: what A includes or calls; [f/]: modules of other folders):"
        % folder)
    for a in mods:
        uses = edges.get(a, ())
        inside = sorted(os.path.basename(b) for b in uses if os.path.dirname(b) == folder)
        outside = sorted({os.path.dirname(b) + "/" for b in uses if os.path.dirname(b) != folder})
        say("  %-16s %s" % (os.path.basename(a) + ":", "  ".join(
            x for x in (", ".join(inside), "[%s]" % ", ".join(outside) if outside else "") if x)))


# ---- the report ---------------------------------------------------------------------------

def size_report(files, say):
    folders = defaultdict(int)
    for s in files:
        folders[s.folder] += s.lines
    say("lines per folder:")
    for folder, n in sorted(folders.items(), key=lambda kv: (-kv[1], kv[0])):
        say("  %6d  %s/" % (n, folder))
    say("largest files:")
    for s in sorted(files, key=lambda s: (-s.lines, s.rel))[:10]:
        say("  %6d  %s" % (s.lines, s.rel))


def function_report(files, limits, allow, say):
    """limits: {top folder: longest function allowed}; folders not named have no limit."""
    funcs = [(last - first + 1, name, s.rel, first)
             for s in files for name, _, first, last, _, _ in s.funcs]
    funcs.sort(key=lambda f: (-f[0], f[2], f[3]))
    limit_of = lambda rel: limits.get(rel.split("/")[0])
    src = [f for f in funcs if f[2].startswith("src/")]
    programs = [f for f in funcs if limit_of(f[2]) is not None and f not in src]
    for title, rows in (("longest functions in src/ (limit %d lines):" % limits["src"], src[:10]),
                        ("longest functions of tools/ and bench/ (limit %d lines):"
                         % limits["tools"], programs[:5])):
        say(title)
        for n, name, rel, line in rows:
            mark = "" if n <= limit_of(rel) else (
                "  (allowed)" if name in allow else "  (over the limit)")
            say("  %6d  %s  %s:%d%s" % (n, name, rel, line, mark))
    over = [f for f in funcs if limit_of(f[2]) is not None and f[0] > limit_of(f[2])]
    problems = ["%s:%d: %s is %d lines long (limit %d; split it, or name it in --allow)"
                % (rel, line, name, n, limit_of(rel)) for n, name, rel, line in over
                if name not in allow]
    stale = sorted(set(allow) - {name for _, name, _, _ in over})
    if stale:
        say("allowed but no longer over the limit (drop from --allow): " + ", ".join(stale))
    return problems


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(here),
                    help="repository root (default: the parent of this script's folder)")
    ap.add_argument("--max-function", type=int, default=100, metavar="N",
                    help="longest function allowed in src/, in lines (default 100)")
    ap.add_argument("--max-function-programs", type=int, default=150, metavar="N",
                    help="longest function allowed in tools/ and bench/, in lines (default 150)")
    ap.add_argument("--allow", default="", metavar="NAME[,NAME]",
                    help="functions allowed over their limit for now")
    ap.add_argument("--quiet", action="store_true", help="only the problems and the last line")
    ap.add_argument("--graph", metavar="FOLDER", action="append", default=[],
                    help="also print the module graph of FOLDER (src/host, tools, ...); repeatable")
    args = ap.parse_args()
    allow = {a.strip() for a in args.allow.split(",") if a.strip()}
    root = os.path.abspath(args.root)
    say = (lambda *_: None) if args.quiet else print

    files = read_tree(root)
    if not files:
        print("structure: no C sources under %s (%s)" % (root, ", ".join(SCANNED)))
        return 1
    by_module = defaultdict(list)
    for s in files:
        by_module[s.module].append(s)
    edges, unresolved = build_graph(root, files)
    say("structure of %s: %d files, %d modules, %d module edges"
        % (root, len(files), len(by_module), sum(len(v) for v in edges.values())))
    for rel, line, written in unresolved:
        say('  note: %s:%d: #include "%s" names no file of the tree (generated or external)'
            % (rel, line, written))

    problems = []
    found = cycles(by_module, edges)
    print("cycles: %s" % (len(found) or "none"))
    for k, comp in enumerate(found, 1):
        problems.append("cycle %d" % k)
        print("cycle %d: %d modules: %s" % (k, len(comp), ", ".join(
            module_label(m, by_module) for m in comp)))
        for a in comp:
            for b in sorted(set(edges[a]) & set(comp)):
                names = sorted({what for _, _, what in edges[a][b]})
                print("  %s -> %s: %s" % (module_label(a, by_module), module_label(b, by_module),
                                          ", ".join(names)))

    layers = layer_problems(edges, lambda m: module_label(m, by_module))
    print("layers (%s, lowest first): %s" % (" < ".join(LAYERS),
                                             "%d violation(s)" % len(layers) if layers else "kept"))
    for p in layers:
        print("  " + p)
    problems += layers

    size_report(files, say)
    limits = {"src": args.max_function, "tools": args.max_function_programs,
              "bench": args.max_function_programs}
    long_ones = function_report(files, limits, allow, say)
    if long_ones:
        print("functions over their limit (src/ %d lines, tools/ and bench/ %d): %d"
              % (args.max_function, args.max_function_programs, len(long_ones)))
    for p in long_ones:
        print("  " + p)
    problems += long_ones

    for folder in args.graph:
        print_graph(folder, edges, by_module, print)

    drawn, narrows = diagram_problems(root, edges, by_module)
    print("the diagram of %s: %d arrow(s), %s" % (DIAGRAM_DOC, narrows, "%d false" % len(drawn)
                                                  if drawn else "every one a dependency"))
    for p in drawn:
        print("  " + p)
    problems += drawn

    text = text_problems(root, Tree(root))
    print("paths and history words in the text: %s"
          % ("%d problem(s)" % len(text) if text else "none stale"))
    for p in text:
        print("  " + p)
    problems += text

    print("structure: OK" if not problems else "structure: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
