import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeToolCategory } from '@switchyard/testkit/conformance';
import { afterAll } from 'vitest';
import { createComputerTools } from './index';

// One temp home for the suite; the generated minimal params only touch files named "sample" in it.
const home = mkdtempSync(path.join(tmpdir(), 'switchyard-conformance-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describeToolCategory('computer tools', () => createComputerTools({ home, limits: { killGraceMs: 200 } }), {
  samples: {
    run_command: [{ command: 'echo conformance' }],
    read_file: [{ path: 'sample.txt' }],
    list_files: [{ pattern: '**/*' }],
    search_files: [{ pattern: 'sample' }],
    write_file: [{ path: 'sample.txt', content: 'sample\n' }],
    edit_file: [{ path: 'sample.txt', old_string: 'sample', new_string: 'example' }],
  },
});
