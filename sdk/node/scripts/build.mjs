// Builds dist/ from src/: ES modules in dist/esm and CommonJS in dist/cjs, each with its
// declarations, both runnable on Node 20 and later. Runs before `npm pack` (prepack).
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = (...args) => execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', ...args], { cwd: root, stdio: 'inherit' });

rmSync(`${root}/dist`, { recursive: true, force: true });
run();
run('--module', 'commonjs', '--moduleResolution', 'node10', '--verbatimModuleSyntax', 'false', '--outDir', 'dist/cjs');
writeFileSync(`${root}/dist/cjs/package.json`, '{ "type": "commonjs" }\n');
// The generated types are a declaration file already: tsc does not copy those.
for (const format of ['esm', 'cjs']) copyFileSync(`${root}/src/schema.d.ts`, `${root}/dist/${format}/schema.d.ts`);
// tsc rewrites relative `.ts` imports in JavaScript, not in declarations: consumers need `.js` there.
for (const format of ['esm', 'cjs']) {
  for (const name of readdirSync(`${root}/dist/${format}`).filter((file) => file.endsWith('.d.ts'))) {
    const file = `${root}/dist/${format}/${name}`;
    writeFileSync(file, readFileSync(file, 'utf8').replace(/(['"])(\.\.?\/[^'"]*?)\.ts\1/g, '$1$2.js$1'));
  }
}
