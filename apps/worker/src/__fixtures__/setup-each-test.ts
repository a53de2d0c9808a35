// Run before every worker test file (vitest `setupFiles`).
import { afterEach } from 'vitest';
import { stopCliChildren } from './run-cli';

// A CLI child left running by a test that timed out is stopped before the next test starts.
afterEach(stopCliChildren);
