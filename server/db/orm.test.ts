import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config.ts';
import { requireServerVersion } from './orm.ts';

describe('database version', () => {
  it('accepts PostgreSQL 18 and later, and names the version it refuses', () => {
    expect(() => requireServerVersion(180004)).not.toThrow();
    expect(() => requireServerVersion(190000)).not.toThrow();
    expect(() => requireServerVersion(170006)).toThrow(ConfigError);
    expect(() => requireServerVersion(170006)).toThrow('PostgreSQL 17.6; Sendline needs PostgreSQL 18 or later');
  });
});
