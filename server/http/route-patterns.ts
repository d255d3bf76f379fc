import { createRequire } from 'node:module';

type PathToRegexp = (path: string, options?: { sensitive?: boolean; strict?: boolean }) => { regexp: RegExp; keys: { name: string }[] };

/**
 * express-openapi-validator finds a request's operation by compiling every route of the contract
 * with path-to-regexp, on every request: a tenth of an API request's CPU. The compiled patterns
 * (stateless regular expressions and their keys) depend only on the route and the options, so the
 * validator's path-to-regexp answers them from memory.
 */
export function rememberRoutePatterns(): void {
  const validatorRequire = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const library = validatorRequire('path-to-regexp') as { pathToRegexp: PathToRegexp & { remembered?: true } };
  if (library.pathToRegexp.remembered) return;
  const compile = library.pathToRegexp;
  const compiled = new Map<string, ReturnType<PathToRegexp>>();
  const remembered: PathToRegexp & { remembered?: true } = (path, options) => {
    const plain = Object.keys(options ?? {}).every((name) => name === 'sensitive' || name === 'strict');
    if (typeof path !== 'string' || !plain) return compile(path, options);
    const key = `${options?.sensitive ? 's' : '-'}${options?.strict ? 's' : '-'}${path}`;
    let pattern = compiled.get(key);
    if (!pattern) {
      pattern = compile(path, options);
      compiled.set(key, pattern);
    }
    return pattern;
  };
  remembered.remembered = true;
  library.pathToRegexp = remembered;
}
