import { describe, expect, it } from 'vitest';
import * as sampleEntry from './__fixtures__/sample-entry';
import { describePublicApi } from './describe-public-api';
import { readEntryExports } from './read-entry-exports';

describe('readEntryExports', () => {
  it('splits the exported names into runtime names and type-only names, re-exports and declarations alike', () => {
    expect(readEntryExports(new URL('./__fixtures__/sample-entry.ts', import.meta.url))).toEqual({
      runtime: ['LOCAL_CONSTANT', 'SampleError', 'localFunction', 'sampleFunction', 'sampleValue'],
      types: ['LocalAlias', 'LocalInterface', 'SampleOptions', 'SampleShape'],
    });
  });

  it('agrees with the runtime names of the loaded module', () => {
    expect(readEntryExports(new URL('./__fixtures__/sample-entry.ts', import.meta.url)).runtime).toEqual(
      Object.keys(sampleEntry).sort(),
    );
  });

  it('refuses an entry that re-exports with export *, naming the line', () => {
    expect(() => readEntryExports(new URL('./__fixtures__/star-entry.ts', import.meta.url))).toThrow(
      /star-entry\.ts:2: name each export instead of `export \*`/,
    );
  });
});

// The suite describePublicApi declares, run over the fixture: both of its tests hold for the right pins.
describePublicApi('sample-entry', {
  source: new URL('./__fixtures__/sample-entry.ts', import.meta.url),
  module: sampleEntry,
  runtime: ['LOCAL_CONSTANT', 'SampleError', 'localFunction', 'sampleFunction', 'sampleValue'],
  types: ['LocalAlias', 'LocalInterface', 'SampleOptions', 'SampleShape'],
});
