#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Count KUnit results in a VM console log.

KUnit prints KTAP on the console when a test module is inserted. This reads
every KTAP document in the log (the kernel's own empty one at boot too),
strips the printk prefixes, and prints one line per leaf case:

    PASS kunit/<suite>/<case>[/<param>]
    FAIL kunit/<suite>/<case>[/<param>]
    SKIP kunit/<suite>/<case>[/<param>] # <KUnit's reason>

A parameterized case counts once per parameter. A plan not met by the end
of its block or of the log (a test module that crashed or hung) counts as
one failure per missing case (.../case-<n>-never-reported).

What the log says of itself is checked against what was parsed, each
disagreement one more line "FAIL kunit/<path> # <what>" (a line with " # "
is such a check, never a case): a parent's "not ok" none of whose parsed
results failed (a garbled or lost result line), a block whose result line
never came, and KUnit's counts, "# <case>: pass:N fail:N skip:N total:N"
(a parameterized case's parameters, a suite's cases) and "# Totals: ..."
(a suite's leaf cases), that differ from the parsed ones.

    ktap.py LOG            the lines above; exit status 0 if no FAIL, 1 if
                           any, 2 if the log has no case at all
    ktap.py --counts LOG   one line "pass:P fail:F skip:S" of the leaf
                           cases (a never-reported one is a failure), to
                           hold against kunit.py's counts
LOG may be - (standard input).
"""
import re
import sys

PREFIX = re.compile(r'^(?:\[\s*[0-9.]+\]\s?)?(?:\[\s*[CT][0-9]+\]\s?)?')
VERSION = re.compile(r'^(\s*)KTAP version \d+\s*$')
SUBTEST = re.compile(r'^(\s*)# Subtest: (\S+)')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)\s*$')
RESULT = re.compile(r'^(\s*)(ok|not ok) \d+(?: -)? ?([^#]*?)\s*(?:#\s*(.*))?$')
STATS = re.compile(r'^\s*# (\S+): pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)\s*$')

LEAF, MISSING, CHECK = 'leaf', 'missing', 'check'


class Parser:
    def __init__(self):
        self.stack = []   # frames: indent, name, planned, seen, direct, start
        self.out = []     # (status, names, kind, note)
        self.stats = {}   # name -> (pass, fail, skip, total), until a result

    def new_frame(self, indent):
        f = {'indent': indent, 'name': None, 'planned': None, 'seen': 0,
             'direct': {'PASS': 0, 'FAIL': 0, 'SKIP': 0},
             'start': len(self.out)}
        self.stack.append(f)
        return f

    def names(self, upto):
        names = []
        for f in self.stack:
            if f['name']:
                names.append(f['name'])
            if f is upto:
                break
        return names

    def emit(self, status, names, kind, note=None):
        self.out.append((status, names, kind, note))

    def close(self, indent, result_name=None):
        """Close the frames nested deeper than indent. The outermost of
        them is the block of the result line named result_name (None: no
        result line, the end of a block or of the log) if the names
        match; it is returned. Every other one never got its result."""
        owned = None
        while self.stack and self.stack[-1]['indent'] > indent:
            f = self.stack[-1]
            path = self.names(f)
            if f['planned'] is not None and f['seen'] < f['planned']:
                for i in range(f['seen'] + 1, f['planned'] + 1):
                    self.emit('FAIL', path + [f'case-{i}-never-reported'],
                              MISSING)
            self.stack.pop()
            outer = not self.stack or self.stack[-1]['indent'] <= indent
            if outer and result_name is not None and \
                    f['name'] in (None, result_name):
                owned = f
                continue
            # a block whose result line never came: its results count, and
            # it takes its place in its parent's plan
            if self.stack:
                self.stack[-1]['seen'] += 1
            if f['seen'] and f['name'] and \
                    not self.out_has_missing_under(f):
                self.emit('FAIL', path, CHECK, 'no result line for this block')
        return owned

    def out_has_missing_under(self, f):
        return any(k == MISSING for _, _, k, _ in self.out[f['start']:])

    def frame(self, indent):
        if not self.stack or self.stack[-1]['indent'] != indent:
            self.close(indent)
            if not self.stack or self.stack[-1]['indent'] < indent:
                self.new_frame(indent)
        return self.stack[-1]

    @staticmethod
    def counts(entries):
        c = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
        for status, _, kind, _ in entries:
            if kind != CHECK:
                c[status] += 1
        return c

    def check_stats(self, path, key, theirs, ours, what):
        p, f, s, t = theirs
        if (p, f, s, t) != (ours['PASS'], ours['FAIL'], ours['SKIP'],
                            sum(ours.values())):
            self.emit('FAIL', path, CHECK,
                      f'KUnit counts {what} pass:{p} fail:{f} skip:{s} total:{t}, '
                      f'parsed pass:{ours["PASS"]} fail:{ours["FAIL"]} '
                      f'skip:{ours["SKIP"]} total:{sum(ours.values())}')

    def line(self, text):
        m = VERSION.match(text)
        if m:
            indent = len(m.group(1))
            self.close(indent - 1)
            self.new_frame(indent)
            return
        m = SUBTEST.match(text)
        if m:
            self.frame(len(m.group(1)))['name'] = m.group(2)
            return
        m = PLAN.match(text)
        if m:
            self.frame(len(m.group(1)))['planned'] = int(m.group(2))
            return
        m = STATS.match(text)
        if m:
            self.stats[m.group(1)] = tuple(int(m.group(i)) for i in range(2, 6))
            return
        m = RESULT.match(text)
        if not m or not self.stack:
            return
        indent = len(m.group(1))
        name = m.group(3).strip()
        directive = (m.group(4) or '').strip()
        status = 'PASS' if m.group(2) == 'ok' else 'FAIL'
        if directive.upper().startswith('SKIP'):
            status = 'SKIP'
        child = self.close(indent, name)
        f = self.frame(indent)
        f['seen'] += 1
        f['direct'][status] += 1
        stats, self.stats = self.stats, {}
        path = self.names(f) + [name]
        leaves = self.out[child['start']:] if child else []
        if not leaves:
            note = directive[4:].strip() if status == 'SKIP' else None
            self.emit(status, path, LEAF, note or None)
            if name in stats:
                self.check_stats(path, name, stats[name],
                                 self.counts([(status, path, LEAF, None)]),
                                 'this case')
            return
        # a parent: its leaves were counted; what it says of them is checked
        ours = self.counts(leaves)
        if status == 'FAIL' and not ours['FAIL']:
            self.emit('FAIL', path, CHECK,
                      f'not ok, but none of its {sum(ours.values())} parsed '
                      'results failed (a result line lost or garbled)')
        if name in stats:
            self.check_stats(path, name, stats[name], child['direct'],
                             'its results')
        if 'Totals' in stats:
            self.check_stats(path, 'Totals', stats['Totals'], ours,
                             'in # Totals')


def parse(path):
    p = Parser()
    f = sys.stdin.buffer if path == '-' else open(path, 'rb')
    with f:
        for raw in f:
            text = raw.decode('utf-8', 'replace').rstrip('\r\n')
            p.line(PREFIX.sub('', text))
    p.close(-1)
    return p


def main(argv):
    counts = len(argv) > 1 and argv[1] == '--counts'
    if counts:
        argv = argv[1:]
    if len(argv) != 2:
        print('usage: ktap.py [--counts] LOG', file=sys.stderr)
        return 2
    p = parse(argv[1])
    if counts:
        c = p.counts(p.out)
        print(f'pass:{c["PASS"]} fail:{c["FAIL"]} skip:{c["SKIP"]}')
        return 0
    for status, names, _, note in p.out:
        line = status + ' ' + '/'.join(['kunit'] + names)
        print(line + (' # ' + note if note else ''))
    if not any(kind != CHECK for _, _, kind, _ in p.out):
        print(f'ktap: no KUnit cases in {argv[1]}', file=sys.stderr)
        return 2
    return 1 if any(s == 'FAIL' for s, _, _, _ in p.out) else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
