import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { METRIC_NAMES, METRIC_TYPES, SCRAPE_METRIC_NAMES } from './metric-names.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const UNIT = read('deploy/sendline.service');
const ALERTS = parse(read('deploy/sendline-alerts.yml'));
const DASHBOARD = JSON.parse(read('deploy/grafana-dashboard.json'));

/** Runs a tool to its end; its output is stdout then stderr. */
function run(command: string, args: string[]): { code: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8' });
  if (result.error) throw new Error(`${command} did not run (bash scripts/ensure-toolchains.sh installs it): ${result.error.message}`);
  return { code: result.status, output: result.stdout + result.stderr };
}

/**
 * `systemd-analyze verify` on a copy of the unit in which /opt/sendline is a temporary folder with
 * a stub bin/sendline: verify refuses a unit whose ExecStart= is not an executable file, has no
 * option to skip that check, and no release is installed at /opt/sendline here (its --root= wants
 * the whole system's units under that root). Nothing else is changed. User=sendline is left as it
 * is: verify does not look users up (systemd does, at start), so a machine without that user
 * verifies it as well.
 */
function verifyUnit(unit: string): { code: number | null; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sendline-unit-'));
  mkdirSync(path.join(dir, 'bin'));
  writeFileSync(path.join(dir, 'bin', 'sendline'), '#!/bin/sh\n', { mode: 0o755 });
  const copy = path.join(dir, 'sendline.service');
  writeFileSync(copy, unit.replaceAll('/opt/sendline', dir));
  return run('systemd-analyze', ['verify', copy]);
}

/** Every name a series of `name` may be queried by: a histogram's are its _bucket, _sum and _count. */
const SERIES = new Set([
  ...METRIC_NAMES.flatMap((name) => (METRIC_TYPES[name] === 'histogram' ? ['_bucket', '_sum', '_count'].map((suffix) => name + suffix) : [name])),
  ...SCRAPE_METRIC_NAMES,
]);

/** The metric names a PromQL expression reads: the words outside quotes starting sendline_, nodejs_ or process_, and `up`. */
function metricsIn(expr: string): string[] {
  const code = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  return [...code.matchAll(/(?<![\w:$])(?:(?:sendline|nodejs|process)_[\w:]*|up)(?![\w:])/g)].map(([name]) => name);
}

/** The metric names of the expressions that are not series of the server's metrics, or Prometheus' `up`. */
function unknownMetrics(exprs: string[]): string[] {
  return [...new Set(exprs.flatMap(metricsIn))].filter((name) => !SERIES.has(name)).sort();
}

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: { refId: string; expr: string; datasource?: { uid: string } }[];
  panels?: Panel[];
}
/** The dashboard's panels, those inside collapsed rows included. */
const PANELS: Panel[] = (DASHBOARD.panels as Panel[]).flatMap((panel) => [panel, ...(panel.panels ?? [])]);
const QUERY_PANELS = PANELS.filter((panel) => panel.type !== 'row');
const PANEL_EXPRS = QUERY_PANELS.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
/** The panels' queries and the variables' (Grafana's `label_values(metric, label)`, not PromQL). */
const DASHBOARD_EXPRS: string[] = [...PANEL_EXPRS, ...(DASHBOARD.templating?.list ?? []).map((variable: { definition: string }) => variable.definition)];
const ALERT_EXPRS: string[] = ALERTS.groups.flatMap((group: { rules: { expr: string }[] }) => group.rules.map((rule) => rule.expr));

describe('deploy/sendline.service', () => {
  it('passes systemd-analyze verify, which prints each setting it cannot use', () => {
    // verify ignores (and exits 0 on) an unknown directive or a value it cannot parse, saying so
    // on stderr: a unit that verifies has no output at all.
    expect(verifyUnit(UNIT)).toEqual({ code: 0, output: '' });
    // That this catches a mistake, on this machine's systemd.
    expect(verifyUnit(UNIT.replace('KillMode=mixed', 'KillMode=gently')).output).toMatch(/kill mode/i);
    expect(verifyUnit(UNIT.replace('RestartSec=', 'RestartSecs=')).output).toMatch(/Unknown key/);
  });

  it('stops the server the way it stops itself, and runs it as its own user', () => {
    const settings = UNIT.split('\n').filter((line) => /^\w+=/.test(line));
    expect(settings).toEqual(
      expect.arrayContaining([
        'User=sendline',
        'ExecStart=/opt/sendline/bin/sendline',
        'KillSignal=SIGTERM',
        'KillMode=mixed',
        'TimeoutStopSec=90',
        'ProtectSystem=strict',
        'NoNewPrivileges=yes',
      ]),
    );
    // V8 compiles to memory it then executes.
    expect(settings.filter((line) => line.startsWith('MemoryDenyWriteExecute='))).toEqual([]);
  });
});

describe('deploy/prometheus.yml and deploy/sendline-alerts.yml', () => {
  it('pass promtool check config, which loads the rule files too', () => {
    const { code, output } = run('promtool', ['check', 'config', 'deploy/prometheus.yml']);
    expect(code, output).toBe(0);
    expect(output).toContain('SUCCESS: 1 rule files found');
  });

  it('scrape the metrics listener on the loopback interface', () => {
    const config = parse(read('deploy/prometheus.yml'));
    expect(config.rule_files).toEqual(['sendline-alerts.yml']);
    expect(config.scrape_configs).toEqual([
      expect.objectContaining({ job_name: 'sendline', metrics_path: '/metrics', static_configs: [{ targets: ['localhost:9464'] }] }),
    ]);
  });

  it('has rules that pass promtool check rules, each with a severity, a summary and a description', () => {
    const { code, output } = run('promtool', ['check', 'rules', 'deploy/sendline-alerts.yml']);
    expect(code, output).toBe(0);
    const rules = ALERTS.groups.flatMap((group: { rules: unknown[] }) => group.rules);
    expect(ALERTS.groups.map((group: { name: string }) => group.name)).toEqual(['sendline']);
    for (const rule of rules) {
      expect(rule, rule.alert).toMatchObject({
        alert: expect.stringMatching(/^Sendline/),
        labels: { severity: expect.stringMatching(/^(critical|warning)$/) },
        annotations: { summary: expect.any(String), description: expect.any(String) },
      });
    }
  });

  it('has alerts that fire on the series of test/deploy/alerts.test.yml as it expects (promtool test rules)', () => {
    const { code, output } = run('promtool', ['test', 'rules', 'test/deploy/alerts.test.yml']);
    expect(code, output).toBe(0);
  });

  it('query only metrics the server exposes', () => {
    const used = new Set(ALERT_EXPRS.flatMap(metricsIn));
    // The expressions are read at all.
    expect([...used]).toEqual(expect.arrayContaining(['up', 'sendline_messages_total', 'sendline_db_pool_waiting', 'nodejs_eventloop_lag_p99_seconds']));
    expect(unknownMetrics(ALERT_EXPRS)).toEqual([]);
  });
});

describe('deploy/grafana-dashboard.json', () => {
  it('is a dashboard to import, on a Prometheus chosen at import', () => {
    expect(DASHBOARD).toMatchObject({ uid: 'sendline', title: 'Sendline', schemaVersion: 39 });
    expect(DASHBOARD.__inputs).toEqual([expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' })]);
    // Every reference to a data source is to that input, or the import leaves it pointing nowhere.
    const datasources: unknown[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          if (key === 'datasource') datasources.push(inner);
          else walk(inner);
        }
      }
    };
    walk(DASHBOARD);
    expect(datasources.length).toBeGreaterThan(QUERY_PANELS.length);
    expect(datasources.filter((datasource) => JSON.stringify(datasource) !== '{"type":"prometheus","uid":"${DS_PROMETHEUS}"}')).toEqual([]);
  });

  it('has panels with unique ids, each with a query, that do not overlap', () => {
    const ids = PANELS.map((panel) => panel.id);
    expect(ids.length).toBeGreaterThan(10);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of QUERY_PANELS) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets!) expect(target.expr, panel.title).toMatch(/\S/);
      const refIds = panel.targets!.map((target) => target.refId);
      expect(new Set(refIds).size, panel.title).toBe(refIds.length);
    }
    const overlap = (a: Panel['gridPos'], b: Panel['gridPos']) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
    const overlapping = DASHBOARD.panels.flatMap((a: Panel, i: number) =>
      (DASHBOARD.panels as Panel[]).slice(i + 1).flatMap((b) => (overlap(a.gridPos, b.gridPos) ? [`${a.title} / ${b.title}`] : [])),
    );
    expect(overlapping).toEqual([]);
  });

  it('has queries that parse as PromQL (promtool check rules, with Grafana variables given values)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sendline-dashboard-'));
    const file = path.join(dir, 'dashboard-queries.yml');
    const rules = PANEL_EXPRS.map((expr, i) => ({
      record: `dashboard:query_${i}`,
      expr: expr.replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.*'),
    }));
    writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules }] }));
    const { code, output } = run('promtool', ['check', 'rules', file]);
    expect(code, output).toBe(0);
  });

  it('queries only metrics the server exposes', () => {
    const used = new Set(DASHBOARD_EXPRS.flatMap(metricsIn));
    expect([...used]).toEqual(
      expect.arrayContaining(['sendline_http_request_duration_seconds_bucket', 'nodejs_gc_duration_seconds_sum', 'sendline_build_info']),
    );
    expect(unknownMetrics(DASHBOARD_EXPRS)).toEqual([]);
  });
});
