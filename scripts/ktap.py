#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Count KUnit results in a VM console log.

KUnit prints KTAP on the console when a test module is inserted. This reads
every KTAP document in the log (the kernel's own empty one at boot too),
strips the printk prefixes, and prints one line per leaf case:

    PASS kunit/<suite>/<case>[/<param>]
    FAIL kunit/<suite>/<case>[/<param>]
    SKIP kunit/<suite>/<case>

A parameterized case counts once per parameter. A plan not met by the end
of its block or of the log (a test module that crashed or hung) counts as
one failure per missing case. Exit status: 0 if no FAIL, 1 if any, 2 if
the log has no case at all.
"""
import re
import sys

PREFIX = re.compile(r'^(?:\[\s*[0-9.]+\]\s?)?(?:\[\s*[CT][0-9]+\]\s?)?')
VERSION = re.compile(r'^(\s*)KTAP version \d+\s*$')
SUBTEST = re.compile(r'^(\s*)# Subtest: (\S+)')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)\s*$')
RESULT = re.compile(r'^(\s*)(ok|not ok) \d+(?: -)? ?([^#]*?)\s*(?:#\s*(.*))?$')


class Parser:
    def __init__(self):
        self.stack = []   # frames: indent, name, planned, seen
        self.out = []

    def close(self, indent):
        """Close frames nested deeper than indent; True if any had results."""
        had = False
        while self.stack and self.stack[-1]['indent'] > indent:
            f = self.stack.pop()
            had = had or f['seen'] > 0
            if f['planned'] is not None and f['seen'] < f['planned']:
                for i in range(f['seen'] + 1, f['planned'] + 1):
                    self.fail_missing(f, i)
        return had

    def fail_missing(self, frame, i):
        self.out.append(('FAIL', self.path(frame) + [f'case-{i}-never-reported']))

    def path(self, upto=None):
        names = []
        for f in self.stack:
            if f['name']:
                names.append(f['name'])
            if f is upto:
                break
        if upto is not None and upto not in self.stack and upto['name']:
            names.append(upto['name'])
        return names

    def frame(self, indent):
        if not self.stack or self.stack[-1]['indent'] != indent:
            self.close(indent)
            if not self.stack or self.stack[-1]['indent'] < indent:
                self.stack.append({'indent': indent, 'name': None,
                                   'planned': None, 'seen': 0})
        return self.stack[-1]

    def line(self, text):
        m = VERSION.match(text)
        if m:
            indent = len(m.group(1))
            self.close(indent - 1)
            self.stack.append({'indent': indent, 'name': None,
                               'planned': None, 'seen': 0})
            return
        m = SUBTEST.match(text)
        if m:
            self.frame(len(m.group(1)))['name'] = m.group(2)
            return
        m = PLAN.match(text)
        if m:
            self.frame(len(m.group(1)))['planned'] = int(m.group(2))
            return
        m = RESULT.match(text)
        if not m or not self.stack:
            return
        indent = len(m.group(1))
        parent = self.close(indent)
        f = self.frame(indent)
        f['seen'] += 1
        if parent:
            return  # its leaves were counted
        directive = (m.group(4) or '').upper()
        status = 'PASS' if m.group(2) == 'ok' else 'FAIL'
        if directive.startswith('SKIP'):
            status = 'SKIP'
        self.out.append((status, self.path() + [m.group(3).strip()]))


def main(path):
    p = Parser()
    with open(path, 'rb') as f:
        for raw in f:
            text = raw.decode('utf-8', 'replace').rstrip('\r\n')
            p.line(PREFIX.sub('', text))
    p.close(-1)
    if not p.out:
        print(f'ktap: no KUnit cases in {path}', file=sys.stderr)
        return 2
    for status, names in p.out:
        print(status, '/'.join(['kunit'] + names))
    return 1 if any(s == 'FAIL' for s, _ in p.out) else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
