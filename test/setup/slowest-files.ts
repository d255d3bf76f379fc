import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 10;

/** After the run, the slowest test files (tests, hooks and import), so that growth is visible. */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const timed = modules.map((module) => {
      const { duration, collectDuration } = module.diagnostic();
      return { file: path.relative(process.cwd(), module.moduleId), seconds: (duration + collectDuration) / 1000 };
    });
    const slowest = timed.sort((a, b) => b.seconds - a.seconds).slice(0, SHOWN);
    if (!slowest.length) return;
    const lines = slowest.map(({ file, seconds }) => `  ${seconds.toFixed(1).padStart(7)} s  ${file}`);
    process.stdout.write(`\nSlowest ${slowest.length} test files:\n${lines.join('\n')}\n`);
  }
}
