#!/usr/bin/env python3
"""check_structure.py -- the structure check of clhgemm's C sources (CTest `structure`).

Reads the .c and .h files of src/, tools/, bench/ and include/ (not tests/, not build folders)
and checks three things that the compiler and the tests do not see, so that the layout the
project chose (docs, src/CMakeLists.txt: one folder per layer) cannot decay unnoticed:

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
 (b) The layer order of src/: base < device < kernels < cpu < tuning < core < host. A folder
     may use itself and any lower folder, never a higher one; src/ may use nothing outside
     src/ and include/, and include/ (the public header, which anyone may use) nothing else.
 (c) Sizes: line counts per folder and per file, and function lengths (from the definition
     line to the closing brace). A function of src/ longer than --max-function lines (100), or
     of the programs in tools/ and bench/ longer than --max-function-programs lines (150), is
     a problem unless it is named in --allow, so that a limit can be made strict one function
     at a time. The programs get more room: a main that reads its options and runs its steps
     in order is longer than a library function, not harder to follow.

What it reads is C as this project writes it: a function definition starts at column 0 with its
return type and `name(` and has a `{` body; calls are `name(` tokens inside bodies once
comments, strings and preprocessor lines are blanked. Calls made inside macros are not seen.

Prints the report (unless --quiet) and the problems, then `structure: OK` or
`structure: N problem(s)`; exits 1 when there is a problem, 0 otherwise.
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
LAYERS = ("base", "device", "kernels", "cpu", "tuning", "core", "host", "lapack", "blas")  # lowest first
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
            elif la is not None and top_b not in ("src", "include"):
                why = "src/ uses %s/" % top_b
            elif top_a == "include" and top_b != "include":
                why = "the public header uses %s/" % top_b
            else:
                continue
            for rel, line, what in edges[a][b]:
                problems.append("%s:%d: %s: %s (%s)" % (rel, line, why, what, label(b)))
    return problems


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

    print("structure: OK" if not problems else "structure: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
