import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config-error.ts';
import { escapeLiteral, requireServerVersion } from './orm.ts';

describe('database version', () => {
  it('accepts PostgreSQL 18 and later, and names the version it refuses', () => {
    expect(() => requireServerVersion(180004)).not.toThrow();
    expect(() => requireServerVersion(190000)).not.toThrow();
    expect(() => requireServerVersion(170006)).toThrow(ConfigError);
    expect(() => requireServerVersion(170006)).toThrow('PostgreSQL 17.6; Sendline needs PostgreSQL 18 or later');
  });
});

describe('SQL literals', () => {
  it("escape as MikroORM's PostgreSQL platform does, in linear native passes", () => {
    const platform = new PostgreSqlPlatform();
    for (const text of ['', "it's", 'a\\b', "\\'\\'", "''", 'Łukasz ☃ \u0000 \n', '\\']) expect(escapeLiteral(text)).toBe(platform.escape(text));
    const content = `<p class="x">It's {{ first_name }} \\ ä</p>`.repeat(25_000);
    const started = performance.now();
    const escaped = escapeLiteral(content);
    expect(performance.now() - started).toBeLessThan(30);
    expect(escaped).toBe(platform.escape(content));
  });
});
