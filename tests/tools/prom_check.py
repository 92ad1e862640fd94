#!/usr/bin/env python3
"""A strict checker of the Prometheus text exposition format (version 0.0.4), standing in
for `promtool check metrics` where Debian's prometheus package (~100 MB with the server
and its web assets) is not installed. It checks what promtool checks and more:

  - every line is a `# HELP name text`, a `# TYPE name type` or a sample
    `name{label="value",...} value` (names and label names by the format's grammar,
    label values with only \\\\, \\" and \\n escapes, values as Go's ParseFloat reads them);
  - one HELP and one TYPE per family, the TYPE before the family's samples, every sample
    in a family that has both, the samples of a family contiguous, no series twice;
  - counters end in _total and are not negative; no unit other than the base ones
    (no _ms, _us, _ns, _milliseconds, _microseconds);
  - histograms: _bucket series with an le label, le ascending, counts not decreasing,
    a +Inf bucket equal to _count, a _sum; summaries: _sum and _count;
  - the text ends with a newline.

Usage: prom_check.py FILE  (exit 0 and "ok N families, M samples", or 1 with the line
number and what was expected). Also importable: parse(text) -> {family: [(name, labels,
value)]}."""
import math
import re
import sys

NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LNAME = r'[a-zA-Z_][a-zA-Z0-9_]*'
FLOAT = re.compile(r'^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$')
TYPES = {'counter', 'gauge', 'histogram', 'summary', 'untyped'}
SUFFIX = {'histogram': ('_bucket', '_sum', '_count'), 'summary': ('_sum', '_count')}


class Bad(Exception):
    pass


def value(s, ln):
    if s in ('NaN', '+Inf', '-Inf', 'Inf'):
        return float(s.replace('Inf', 'inf').replace('NaN', 'nan'))
    if not FLOAT.match(s):
        raise Bad(f'line {ln}: expected a number, NaN, +Inf or -Inf, got {s!r}')
    return float(s)


def labels(s, ln):
    out, i = {}, 0
    while i < len(s):
        m = re.compile(LNAME + '="').match(s, i)
        if not m:
            raise Bad(f'line {ln}: expected label="value" at {s[i:]!r}')
        k = m.group(0)[:-2]
        i = m.end()
        v = []
        while True:
            if i >= len(s):
                raise Bad(f'line {ln}: unterminated label value of {k}')
            c = s[i]
            if c == '\\':
                if i + 1 >= len(s) or s[i + 1] not in '\\"n':
                    raise Bad(f'line {ln}: label {k}: only \\\\, \\" and \\n may be escaped')
                v.append({'\\': '\\', '"': '"', 'n': '\n'}[s[i + 1]])
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == '\n':
                raise Bad(f'line {ln}: raw newline in label {k}')
            else:
                v.append(c)
                i += 1
        if k in out:
            raise Bad(f'line {ln}: label {k} twice')
        out[k] = ''.join(v)
        if i < len(s):
            if s[i] != ',':
                raise Bad(f'line {ln}: expected , between labels, got {s[i]!r}')
            i += 1
    return out


def family_of(name, types):
    if name in types and types[name] not in SUFFIX:
        return name
    for t in ('_bucket', '_sum', '_count'):
        if name.endswith(t):
            base = name[:-len(t)]
            if base in types and t in SUFFIX.get(types[base], ()):
                return base
    return name


def parse(text):
    if not text.endswith('\n'):
        raise Bad('the text does not end with a newline')
    helps, types, fams, seen, order = {}, {}, {}, set(), []
    sample_re = re.compile(r'^(' + NAME + r')(\{(.*)\})? (\S+)( -?\d+)?$')
    for ln, line in enumerate(text[:-1].split('\n'), 1):
        if line.startswith('#'):
            m = re.match(r'^# (HELP|TYPE) (' + NAME + r') (.*)$', line)
            if not m:
                if re.match(r'^# (HELP|TYPE)\b', line):
                    raise Bad(f'line {ln}: malformed {line!r}')
                continue
            kind, name, rest = m.groups()
            d = helps if kind == 'HELP' else types
            if name in d:
                raise Bad(f'line {ln}: second {kind} for {name}')
            if name in fams:
                raise Bad(f'line {ln}: {kind} for {name} after its samples')
            if kind == 'TYPE' and rest not in TYPES:
                raise Bad(f'line {ln}: unknown type {rest!r}')
            if kind == 'HELP' and not rest.strip():
                raise Bad(f'line {ln}: empty HELP for {name}')
            d[name] = rest
            continue
        m = sample_re.match(line)
        if not m:
            raise Bad(f'line {ln}: expected a sample `name{{labels}} value`, got {line!r}')
        name, _, lab, val, _ = m.groups()
        lab = labels(lab or '', ln)
        v = value(val, ln)
        fam = family_of(name, types)
        if fam not in types or fam not in helps:
            raise Bad(f'line {ln}: sample {name} has no TYPE and HELP before it')
        if fam in fams and order[-1] != fam:
            raise Bad(f'line {ln}: samples of {fam} are not together')
        if fam not in fams:
            fams[fam] = []
            order.append(fam)
        key = (name, tuple(sorted(lab.items())))
        if key in seen:
            raise Bad(f'line {ln}: series {name}{lab} twice')
        seen.add(key)
        t = types[fam]
        if t == 'counter':
            if not fam.endswith('_total'):
                raise Bad(f'line {ln}: counter {fam} does not end in _total')
            if not v >= 0:
                raise Bad(f'line {ln}: counter {fam} is {v}')
        if re.search(r'_(ms|us|ns|milliseconds|microseconds|nanoseconds)(_|$)', fam):
            raise Bad(f'line {ln}: {fam}: not a base unit')
        if t in SUFFIX and name == fam:
            raise Bad(f'line {ln}: {t} {fam} sample without a suffix')
        if name.endswith('_bucket') and 'le' not in lab:
            raise Bad(f'line {ln}: bucket without le')
        fams[fam].append((name, lab, v))
    for fam, t in types.items():
        if fam not in helps:
            raise Bad(f'{fam}: TYPE without HELP')
        if t in SUFFIX and fam in fams:
            check_series(fam, t, fams[fam])
    return fams


def check_series(fam, t, samples):
    series = {}
    for name, lab, v in samples:
        key = tuple(sorted((k, x) for k, x in lab.items() if k not in ('le', 'quantile')))
        series.setdefault(key, []).append((name, lab, v))
    for key, ss in series.items():
        d = dict(key)
        count = [v for n, _, v in ss if n == fam + '_count']
        if len([1 for n, _, _ in ss if n == fam + '_sum']) != 1 or len(count) != 1:
            raise Bad(f'{fam}{d}: expected one _sum and one _count')
        if t != 'histogram':
            continue
        b = [(value(lab['le'], 0) if lab['le'] != '+Inf' else math.inf, v)
             for n, lab, v in ss if n == fam + '_bucket']
        if not b or b[-1][0] != math.inf:
            raise Bad(f'{fam}{d}: the last bucket is not le="+Inf"')
        for (l0, c0), (l1, c1) in zip(b, b[1:]):
            if not l1 > l0:
                raise Bad(f'{fam}{d}: le {l1} after {l0}: not ascending')
            if c1 < c0:
                raise Bad(f'{fam}{d}: bucket le={l1} holds {c1} < {c0} of le={l0}')
        if b[-1][1] != count[0]:
            raise Bad(f'{fam}{d}: +Inf bucket {b[-1][1]} != _count {count[0]}')


def main():
    try:
        fams = parse(open(sys.argv[1], encoding='utf-8').read())
    except (Bad, UnicodeDecodeError) as e:
        print(f'{sys.argv[1]}: {e}', file=sys.stderr)
        return 1
    print(f'ok {len(fams)} families, {sum(len(s) for s in fams.values())} samples')
    return 0


if __name__ == '__main__':
    sys.exit(main())
