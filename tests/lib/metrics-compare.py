#!/usr/bin/env python3
"""Check damonc's metrics (Prometheus text format) against `damonc status --json`.

    metrics-compare.py BEFORE.json METRICS.prom AFTER.json

BEFORE and AFTER are `damonc --json status` documents read just before and just after the
metrics were produced (or scraped): values that cannot change while damonc runs (pids,
states, intervals, quotas, goal targets) must equal theirs; counters (the kernel's stats,
the agent's rounds) must lie between them. The metrics may come from node_exporter, whose
own series are ignored. Prints what it checked; exits 1 naming the first difference.
"""
import json
import re
import sys

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    series = {}
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        m = SAMPLE.match(line)
        if not m:
            sys.exit(f'FAIL: not a sample line: {line!r}')
        name, labels, value = m.groups()
        if not name.startswith('damonc_'):
            continue
        key = (name, frozenset(LABEL.findall(labels or '')))
        if key in series:
            sys.exit(f'FAIL: series twice: {line!r}')
        series[key] = float(value)
    return series


class Checker:
    def __init__(self, series):
        self.series = series
        self.checked = 0

    def get(self, name, **labels):
        key = (name, frozenset((k, str(v)) for k, v in labels.items()))
        if key not in self.series:
            sys.exit(f'FAIL: no series {name}{labels}')
        return self.series[key]

    def absent(self, name, **labels):
        key = (name, frozenset((k, str(v)) for k, v in labels.items()))
        if key in self.series:
            sys.exit(f'FAIL: unexpected series {name}{labels}')

    def eq(self, want, name, **labels):
        got = self.get(name, **labels)
        if abs(got - want) > 1e-9 * max(1.0, abs(want)):
            sys.exit(f'FAIL: {name}{labels} is {got}, status --json gives {want}')
        self.checked += 1

    def one_of(self, wants, name, **labels):
        got = self.get(name, **labels)
        if not any(abs(got - w) <= 1e-9 * max(1.0, abs(w)) for w in wants):
            sys.exit(f'FAIL: {name}{labels} is {got}, status --json allows {wants}')
        self.checked += 1

    def between(self, lo, hi, name, **labels):
        got = self.get(name, **labels)
        if not lo <= got <= hi:
            sys.exit(f'FAIL: {name}{labels} is {got}, status --json gives {lo} then {hi}')
        self.checked += 1


def main():
    before, text, after = (open(p).read() for p in sys.argv[1:4])
    before, after = json.loads(before), json.loads(after)
    c = Checker(parse(text))
    c.eq(len(after['kdamonds']), 'damonc_kdamonds')
    for k, (kb, ka) in enumerate(zip(before['kdamonds'], after['kdamonds'])):
        kl = {'kdamond': k}
        c.eq(1 if ka['state'] == 'on' else 0, 'damonc_kdamond_running', **kl)
        c.eq(ka['pid'], 'damonc_kdamond_pid', **kl)
        c.eq(1 if ka['started_by_damonc'] else 0, 'damonc_kdamond_started_by_damonc', **kl)
        if 'refresh_ms' in ka:
            c.eq(ka['refresh_ms'] / 1000, 'damonc_kdamond_refresh_interval_seconds', **kl)
        agent = ka.get('agent')
        fallbacks = agent['fallbacks'] if agent else []
        collapsed_by_agent = {f['scheme']: f for f in fallbacks if f['kind'] == 'collapse'
                              and f.get('collapsed_by', 'agent') == 'agent'}
        paced = {f['scheme']: f for f in fallbacks if f['kind'] == 'collapse'
                 and f.get('collapsed_by') == 'kernel'}
        fed = {(f['scheme'], f['goal']) for f in fallbacks if f['kind'] == 'hugepage_mem_bp'}
        if agent:
            c.eq(0 if agent['served_by'] == 'none' else 1, 'damonc_agent_serving', **kl)
            c.between(kb['agent']['rounds'], agent['rounds'], 'damonc_agent_rounds_total', **kl)
            c.between(kb['agent']['feeds'], agent['feeds'], 'damonc_agent_feeds_total', **kl)
        else:
            c.absent('damonc_agent_serving', **kl)
        for ci, (cb, ca) in enumerate(zip(kb['contexts'], ka['contexts'])):
            cl = dict(kl, context=ci)
            c.eq(1, 'damonc_context_info', operations=ca['operations'], **cl)
            iv = ca['monitoring_attrs']['intervals']
            c.eq(iv['sample_us'] / 1e6, 'damonc_context_sample_interval_seconds', **cl)
            c.eq(iv['aggr_us'] / 1e6, 'damonc_context_aggregation_interval_seconds', **cl)
            c.eq(iv['update_us'] / 1e6, 'damonc_context_update_interval_seconds', **cl)
            nr = ca['monitoring_attrs']['nr_regions']
            c.eq(nr['min'], 'damonc_context_min_regions', **cl)
            c.eq(nr['max'], 'damonc_context_max_regions', **cl)
            c.eq(len(ca['targets']), 'damonc_context_targets', **cl)
            if ca['operations'] != 'paddr':
                for ti, t in enumerate(ca['targets']):
                    c.get('damonc_target_rss_bytes', target=ti, pid=t['pid_target'], **cl)
                    c.checked += 1
            for si, (sb, sa) in enumerate(zip(cb['schemes'], ca['schemes'])):
                sl = dict(cl, scheme=si)
                by_agent = ci == 0 and si in collapsed_by_agent
                action = 'collapse' if by_agent else sa['action']
                c.eq(1, 'damonc_scheme_info', action=action,
                     applied_by='agent' if by_agent else 'kernel', **sl)
                for stat, name in (('nr_tried', 'tried_regions'), ('sz_tried', 'tried_bytes'),
                                   ('nr_applied', 'applied_regions'),
                                   ('sz_applied', 'applied_bytes'),
                                   ('qt_exceeds', 'quota_exceeds')):
                    c.between(sb['stats'][stat], sa['stats'][stat],
                              f'damonc_scheme_{name}_total', **sl)
                q = sa['quotas']
                if by_agent:
                    fb = collapsed_by_agent[si]
                    q = {'bytes': fb['quota_bytes'], 'ms': fb['quota_ms'],
                         'reset_interval_ms': fb['reset_ms'], 'goals': []}
                    if fb['target_bp']:
                        q['goals'] = [{'target_metric': 'hugepage_mem_bp',
                                       'target_value': fb['target_bp']}]
                    c.absent('damonc_scheme_effective_quota_bytes', **sl)
                elif 'effective_bytes' in q:
                    c.get('damonc_scheme_effective_quota_bytes', **sl)
                if ci == 0 and si in paced:
                    # the agent's 1 B while it allows the kernel nothing, or the user's
                    c.one_of((1, paced[si].get('quota_bytes', 0)), 'damonc_scheme_quota_bytes',
                             **sl)
                else:
                    c.eq(q['bytes'], 'damonc_scheme_quota_bytes', **sl)
                c.eq(q['ms'] / 1000, 'damonc_scheme_quota_time_seconds', **sl)
                c.eq(q['reset_interval_ms'] / 1000,
                     'damonc_scheme_quota_reset_interval_seconds', **sl)
                for gi, g in enumerate(q.get('goals', [])):
                    metric = g.get('target_metric', 'user_input')
                    if (si, gi) in fed:
                        metric = 'hugepage_mem_bp'
                    c.eq(g['target_value'], 'damonc_goal_target_value', goal=gi,
                         metric=metric, **sl)
    print(f'ok: {c.checked} values agree with damonc status --json')


main()
