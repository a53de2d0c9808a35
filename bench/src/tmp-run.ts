import { busyDaemon } from './suites/busy-daemon';

const result = await busyDaemon({ levels: [500], nodeArguments: ['--cpu-prof', '--cpu-prof-dir=/tmp/bd-prof'] });
for (const backend of result.backends)
  for (const row of backend.rows) console.log(backend.backend, row.problems);
