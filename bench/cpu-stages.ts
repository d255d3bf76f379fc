/**
 * Where a profiled server's CPU went, by stage: reads the `.cpuprofile` files that
 * `--cpu-prof --cpu-prof-dir=DIR` wrote (one per thread) and gives each sample to the first stage
 * found from its innermost frame outwards (a built-in such as `String.replace` counts for the
 * code that called it). Idle samples are left out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** [stage, test of a frame's `url` or function name]; the first that matches wins. */
export type StageRules = [string, (url: string, fn: string) => boolean][];

const has =
  (...parts: string[]) =>
  (url: string) =>
    parts.some((p) => url.includes(p));

/** The send path's stages, for the main thread and the sending threads alike. */
export const SEND_STAGES: StageRules = [
  ['garbage collection', (_u, fn) => fn === '(garbage collector)'],
  ['render (Liquid)', has('/liquidjs/', '/rendering/campaign-template.ts', '/rendering/liquid-parse.ts')],
  ['link rewriting (htmlparser2)', has('/htmlparser2/', '/rendering/html-links.ts', '/tracked-links/links.ts')],
  ['token signing', has('/tracked-links/tokens.ts')],
  ['render (rest)', has('/rendering/campaign-message.ts')],
  ['MIME', has('/rendering/mime.ts', '/sending/transport.ts')],
  ['SMTP client', has('/nodemailer/', '/sending/smtp-pool.ts')],
  [
    'thread hand-off',
    (url, fn) => url.includes('internal/worker') || url.includes('messageport') || fn === 'postMessage' || url.includes('/sending/send-thread'),
  ],
  ['events', has('/events/')],
  ['rollups', has('/tracking/store.ts')],
  ['claim, record (send loop)', has('/campaigns/sender.ts', '/sending/send-threads.ts', '/campaigns/store.ts')],
  ['database client (pg, Kysely, ORM)', has('/pg/', '/pg-protocol/', '/pg-types/', '/postgres-', '/kysely/', '/@mikro-orm/', '/db/')],
  ['HTTP (API, the bench polling)', has('/express/', '/router/', '/express-openapi-validator/', '/server/http/', '/node:http', '_http_')],
  ['jobs, other project code', has('/server/')],
];

/** Node's own code, where no frame of a stage above is on the stack. */
const NODE_STAGES: StageRules = [
  ['sockets, streams, timers (Node)', has('node:net', 'node:stream', 'internal/streams', 'node:events', 'internal/timers', 'node:internal/process')],
];

/**
 * CPU milliseconds per stage of every profile in `dir`, and per thread (file), counting only the
 * samples taken within `window` (µs of the monotonic clock, `process.hrtime`, which V8's profiles
 * share on Linux).
 */
export function stagesOf(
  dir: string,
  rules: StageRules,
  window: { from: number; to: number },
): { total: Map<string, number>; threads: { file: string; ms: number }[] } {
  const total = new Map<string, number>();
  const threads: { file: string; ms: number }[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    // The innermost frame of a stage of code; failing that, of Node's own (sockets, streams).
    const innermost = (table: StageRules) => {
      const memo = new Map<number, string | null>();
      const find = (id: number): string | null => {
        if (memo.has(id)) return memo.get(id)!;
        const { url, functionName } = byId.get(id)!.callFrame;
        const up = parent.get(id);
        const found = table.find(([, test]) => test(url, functionName))?.[0] ?? (up === undefined ? null : find(up));
        memo.set(id, found);
        return found;
      };
      return find;
    };
    const [code, node] = [innermost(rules), innermost(NODE_STAGES)];
    const stage = (id: number): string | null => (byId.get(id)!.callFrame.functionName === '(idle)' ? null : (code(id) ?? node(id) ?? 'other (V8, Node)'));
    let ms = 0;
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      at += profile.timeDeltas[i] ?? 0;
      const s = at >= window.from && at <= window.to ? stage(id) : null;
      if (s === null) return;
      const delta = (profile.timeDeltas[i] ?? 0) / 1000;
      ms += delta;
      total.set(s, (total.get(s) ?? 0) + delta);
    });
    threads.push({ file, ms });
  }
  return { total, threads };
}
