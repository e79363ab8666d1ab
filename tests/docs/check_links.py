#!/usr/bin/env python3
"""check_links.py ROOT -- the documentation's links and the README's size.

Checks, for README.md and every docs/*.md under ROOT:
  - every relative link [text](target) names a file that exists, and, with
    #anchor, a heading of that file whose GitHub anchor is anchor (links
    inside fenced code blocks and inline code are not links);
  - every page of docs/ is reachable from the README by links;
  - the README is at most 250 lines (issue 42: the two commands, what it does,
    a session, where to go next; the reference lives in docs/).
External links (http:, https:, mailto:) are not fetched: CI has no network.
Prints one line per problem, FILE:LINE: message, and exits 1 if any.
"""
import os
import re
import sys

README_MAX_LINES = 250
LINK = re.compile(r'(?<!\!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
IMAGE = re.compile(r'\!\[[^\]]*\]\(([^)\s]+)\)')


def prose_lines(path):
    """(line number, text) of the lines outside fenced code, inline code cut."""
    fenced = False
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if line.lstrip().startswith('```'):
                fenced = not fenced
                continue
            if not fenced:
                yield number, re.sub(r'`[^`]*`', '``', line)


def raw_headings(path):
    """Headings with their inline code kept (anchors keep code's words)."""
    fenced, out = False, []
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.lstrip().startswith('```'):
                fenced = not fenced
            elif not fenced and re.match(r'#{1,6}\s', line):
                out.append(line)
    return out


def anchor_set(path, cache={}):
    if path not in cache:
        seen, result = {}, set()
        for line in raw_headings(path):
            text = re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line).group(1)
            slug = re.sub(r'[^\w\- ]', '', text.lower()).replace(' ', '-')
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            result.add(slug if n == 0 else '%s-%d' % (slug, n))
        cache[path] = result
    return cache[path]


def links(path):
    for number, line in prose_lines(path):
        for m in list(LINK.finditer(line)) + list(IMAGE.finditer(line)):
            yield number, m.group(1)


def check(root):
    problems = []
    readme = os.path.join(root, 'README.md')
    docs = os.path.join(root, 'docs')
    pages = [readme] + sorted(os.path.join(docs, n) for n in os.listdir(docs)
                              if n.endswith('.md'))
    reached, todo = {os.path.realpath(readme)}, [readme]
    while todo:
        page = todo.pop()
        for number, target in links(page):
            if re.match(r'[a-z]+:', target):
                continue
            where = '%s:%d' % (os.path.relpath(page, root), number)
            file_part, _, anchor = target.partition('#')
            dest = page if not file_part else os.path.normpath(
                os.path.join(os.path.dirname(page), file_part))
            if not os.path.exists(dest):
                problems.append('%s: link to %s: no such file' % (where, target))
                continue
            if anchor and dest.endswith('.md') and anchor not in anchor_set(dest):
                problems.append('%s: link to %s: no heading with that anchor'
                                % (where, target))
            real = os.path.realpath(dest)
            if dest.endswith('.md') and real not in reached and \
                    real.startswith(os.path.realpath(root) + os.sep):
                reached.add(real)
                todo.append(dest)
    for page in pages:
        if os.path.realpath(page) not in reached:
            problems.append('%s:1: not reachable from README.md by links'
                            % os.path.relpath(page, root))
    with open(readme, encoding='utf-8') as f:
        count = sum(1 for _ in f)
    if count > README_MAX_LINES:
        problems.append('README.md:%d: %d lines, more than %d (move reference to docs/)'
                        % (count, count, README_MAX_LINES))
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    problems = check(root)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
