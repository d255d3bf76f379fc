import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { createLogger, defineConfig, type Plugin } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Writes `.br` and `.gz` beside each script and style sheet as built: the server sends them as they are. */
function precompress(): Plugin {
  return {
    name: 'sendline-precompress',
    apply: 'build',
    // After the bundle is written: Vite rewrites chunks (preload lists) until then.
    writeBundle(options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const file = path.join(options.dir!, name);
        const bytes = readFileSync(file);
        writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

/** Vite's logger without the notes that the SDK's Node-only modules are left out, which they are meant to be. */
function quietLogger() {
  const logger = createLogger('warn');
  const warn = logger.warn.bind(logger);
  logger.warn = (message, options) => {
    if (!message.includes('externalized for browser compatibility')) warn(message, options);
  };
  return logger;
}

// JSX goes through Vite's esbuild (no Babel plugin: the build needs no fast refresh). The SDK is
// bundled from its TypeScript sources, the same code its Node package is built from; its Node-only
// modules (webhook verification, CSV files by path) are left out of the browser bundle.
export default defineConfig({
  root: here('.'),
  base: '/app/',
  esbuild: { jsx: 'automatic' },
  resolve: { alias: { '@sendline/sdk': here('../sdk/node/src/index.ts') } },
  plugins: [precompress()],
  build: {
    outDir: here('dist'),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    // ECharts is one chunk of about 1 MB (150 KB compressed), loaded by the first chart only.
    chunkSizeWarningLimit: 1_500,
    rollupOptions: {
      onwarn(warning, warn) {
        if (warning.code === 'MISSING_EXPORT' && warning.exporter === '__vite-browser-external') return;
        // React Server Components markers, meaningless in a client bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  customLogger: quietLogger(),
  logLevel: 'warn',
});
