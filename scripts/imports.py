#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""The import graph of cma/: which file's functions each C file calls,
read from its #include "x.h" lines (x.c exists; a header without a .c,
such as transport.h, is followed to the headers it includes). Prints the
circles (strongly connected components of more than one file) and fails
on any not in the allowed list, word for word.

  scripts/imports.py DIR ALLOWED [EXTRA_EDGE ...]
    EXTRA_EDGE: "a:b", a planted edge a.c -> b.c (lint.sh's canary)
"""
import os
import re
import sys

inc = re.compile(r'^#include "([A-Za-z0-9_]+)\.h"', re.M)


def edges(d, extra):
    g = {}
    def heads(name, seen):
        """the nodes a header stands for: itself if it has a .c, else
        what it includes"""
        if os.path.exists(os.path.join(d, name + '.c')):
            return {name}
        if name in seen or not os.path.exists(os.path.join(d, name + '.h')):
            return set()
        seen.add(name)
        out = set()
        for h in inc.findall(open(os.path.join(d, name + '.h')).read()):
            out |= heads(h, seen)
        return out
    for f in sorted(os.listdir(d)):
        if not f.endswith('.c'):
            continue
        n = f[:-2]
        g.setdefault(n, set())
        for h in inc.findall(open(os.path.join(d, f)).read()):
            g[n] |= heads(h, set()) - {n}
    for e in extra:
        a, b = e.split(':')
        g.setdefault(a, set()).add(b)
    return g


def circles(g):
    index, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
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
                out.append(' '.join(sorted(comp)))
    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(out)


def main():
    d, allowed = sys.argv[1], sys.argv[2]
    ok = {l.strip() for l in open(allowed)
          if l.strip() and not l.startswith('#')}
    bad = 0
    for c in circles(edges(d, sys.argv[3:])):
        if c in ok:
            print(f'imports: allowed circle: {c}')
        else:
            print(f'imports: new import circle: {c}', file=sys.stderr)
            bad = 1
    stale = ok - set(circles(edges(d, sys.argv[3:])))
    for c in sorted(stale):
        print(f'imports: listed circle no longer there (update {allowed}): {c}',
              file=sys.stderr)
        bad = 1
    if not bad:
        print('imports: no circle but the listed ones')
    return bad


sys.exit(main())
