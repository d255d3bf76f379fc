/**
 * The dependency rule of server/ (`npm run lint`): dependency-cruiser checks the file-level rules
 * of .dependency-cruiser.json (the composition root imported only by the entry points, no file
 * circles, db/ below the features, each store private to its feature, features below http/),
 * with the violations of today in .dependency-cruiser-known-violations.json. This adds the folder
 * level, where every feature folder and top-level file is one module and no module may reach
 * itself through others. The arrows that close such a circle today are listed in
 * .module-circles-known.json. A new violation of either kind fails; `--update` rewrites both lists
 * once arrows are removed, so that they only shrink.
 * It prints the measures it keeps in check: the largest circle, the pairs importing each other.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KNOWN_CIRCLES = `${ROOT}.module-circles-known.json`;
const bin = (name: string) => `${ROOT}node_modules/.bin/${name}`;
const depcruise = (command: string, args: string[]) =>
  execFileSync(process.execPath, [bin(command), 'server', '--config', '.dependency-cruiser.json', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });

interface Cruise {
  modules: { source: string; dependencies: { resolved: string }[] }[];
  summary: { violations: { rule: { name: string; severity: string }; from: string; to: string }[] };
}

/** `server/contacts/store.ts` → `contacts`; a top-level file is a module of its own. */
const moduleOf = (file: string) => file.replace(/^server\//, '').split('/')[0];

/** Tarjan's strongly connected components of the module graph. */
function components(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      for (let member = stack.pop()!; ; member = stack.pop()!) {
        component.push(member);
        if (member === node) break;
      }
      found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const update = process.argv.includes('--update');
if (update) depcruise('depcruise-baseline', ['--output-to', '.dependency-cruiser-known-violations.json']);
const cruise = JSON.parse(depcruise('depcruise', ['--ignore-known', '--output-type', 'json'])) as Cruise;
// Known violations come back with the severity `ignore`.
const violations = cruise.summary.violations.filter((v) => v.rule.severity !== 'ignore');

const graph = new Map<string, Set<string>>();
for (const { source, dependencies } of cruise.modules) {
  if (!source.startsWith('server/')) continue;
  const from = moduleOf(source);
  if (!graph.has(from)) graph.set(from, new Set());
  for (const { resolved } of dependencies) if (resolved.startsWith('server/') && moduleOf(resolved) !== from) graph.get(from)!.add(moduleOf(resolved));
}
const circles = components(graph).filter((c) => c.length > 1);
const inCircle = new Map(circles.flatMap((c) => c.map((m) => [m, c] as const)));
const circleArrows = [...graph].flatMap(([from, tos]) => [...tos].filter((to) => inCircle.get(from)?.includes(to)).map((to) => `${from} → ${to}`)).sort();
const mutual = [...graph].flatMap(([a, tos]) => [...tos].filter((b) => a < b && graph.get(b)?.has(a)).map((b) => `${a} ⇄ ${b}`));

if (update) writeFileSync(KNOWN_CIRCLES, `${JSON.stringify(circleArrows, null, 2)}\n`);
const known = new Set(JSON.parse(readFileSync(KNOWN_CIRCLES, 'utf8')) as string[]);
const newCircleArrows = circleArrows.filter((arrow) => !known.has(arrow));
const stale = [...known].filter((arrow) => !circleArrows.includes(arrow));

console.log(
  `modules: ${graph.size}; largest circle: ${Math.max(1, ...circles.map((c) => c.length))} modules; pairs importing each other: ${mutual.length}; ` +
    `file-rule violations known: ${(JSON.parse(readFileSync(`${ROOT}.dependency-cruiser-known-violations.json`, 'utf8')) as unknown[]).length}`,
);
for (const v of violations) console.error(`  ${v.rule.name}: ${v.from} → ${v.to}`);
for (const arrow of newCircleArrows) console.error(`  module-circle: ${arrow} closes a circle between modules`);
if (stale.length) console.log(`  no longer in a circle (run with --update to drop them from the list): ${stale.join(', ')}`);
if (violations.length || newCircleArrows.length) {
  console.error('New dependencies break the module rule (.dependency-cruiser.json); see the lines above.');
  process.exit(1);
}
