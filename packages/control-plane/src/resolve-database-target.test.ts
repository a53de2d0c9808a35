import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveDatabaseTarget } from './resolve-database-target';

describe('resolveDatabaseTarget', () => {
  it('prefers databaseUrl, then DATABASE_URL, then embedded PGlite', () => {
    expect(
      resolveDatabaseTarget({ databaseUrl: 'postgres://a@h/db' }, { DATABASE_URL: 'postgres://b@h/db' }),
    ).toEqual({ kind: 'postgres', url: 'postgres://a@h/db' });
    expect(resolveDatabaseTarget({}, { DATABASE_URL: 'postgresql://b@h/db' })).toEqual({
      kind: 'postgres',
      url: 'postgresql://b@h/db',
    });
    expect(resolveDatabaseTarget({ dataDir: 'state' }, {})).toEqual({
      kind: 'pglite',
      dataDir: path.resolve('state'),
    });
  });

  it('names the field of a bad URL', () => {
    expect(() => resolveDatabaseTarget({ databaseUrl: 'mysql://x' }, {})).toThrow(
      /^databaseUrl: expected a postgres/,
    );
    expect(() => resolveDatabaseTarget({}, { DATABASE_URL: 'nope' })).toThrow(
      /^DATABASE_URL: not a valid URL/,
    );
  });
});
