/** `npm run bench [-- name …]`: runs the named benchmarks (all by default) and records them in bench/README.md. */
import { apiBenchmark } from './api.ts';
import { importBenchmark } from './import.ts';
import { sendBenchmark } from './send.ts';
import { trackingBenchmark } from './tracking.ts';
import { analyticsBenchmark } from './analytics.ts';
import { webhooksBenchmark } from './webhooks.ts';
import { csvBenchmark } from './csv.ts';
import { mimeBenchmark } from './mime.ts';
import { segmentsBenchmark } from './segments.ts';
import { listsBenchmark } from './lists.ts';
import { transactionalBenchmark } from './transactional.ts';
import { exportBenchmark } from './export.ts';
import { audienceBenchmark } from './audience.ts';
import { dashboardBenchmark } from './dashboard.ts';
import { automationsBenchmark } from './automations.ts';
import { profilesBenchmark } from './profiles.ts';
import { clusterBenchmark } from './cluster.ts';

const benchmarks: Record<string, () => Promise<void>> = {
  api: apiBenchmark,
  import: importBenchmark,
  send: sendBenchmark,
  tracking: trackingBenchmark,
  analytics: analyticsBenchmark,
  webhooks: webhooksBenchmark,
  csv: csvBenchmark,
  mime: mimeBenchmark,
  segments: segmentsBenchmark,
  lists: listsBenchmark,
  transactional: transactionalBenchmark,
  export: exportBenchmark,
  audience: audienceBenchmark,
  dashboard: dashboardBenchmark,
  automations: automationsBenchmark,
  profiles: profilesBenchmark,
  cluster: clusterBenchmark,
};

const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(benchmarks);
for (const name of names) {
  const bench = benchmarks[name];
  if (!bench) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(benchmarks).join(', ')}`);
    process.exit(2);
  }
  console.log(`== ${name}`);
  await bench();
}
