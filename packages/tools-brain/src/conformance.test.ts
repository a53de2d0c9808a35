import { describeToolCategory } from '@switchyard/testkit/conformance';
import { memoryBrain } from './__fixtures__/memory-brain';
import { createBrainTools } from './index';

async function seeded() {
  const brain = memoryBrain();
  await brain.remember({
    agentId: 'ada',
    title: 'Deploys',
    body: 'Run make deploy from main.',
    tags: ['ops'],
  });
  return brain;
}

describeToolCategory(
  'brain tools (read-write)',
  async () => createBrainTools({ brain: await seeded(), agentId: 'ada', mode: 'read-write' }),
  {
    samples: {
      remember: [{ title: 'Deploys', body: 'Run make deploy from main, then check the dashboard.' }],
      recall: [{ query: 'deploy' }],
      get_page: [{ pageId: 'p1' }],
      forget: [{ pageId: 'p1' }],
    },
  },
);

describeToolCategory(
  'brain tools (read-only)',
  async () => createBrainTools({ brain: await seeded(), agentId: 'ada', mode: 'read-only' }),
  { samples: { recall: [{ query: 'deploy', tags: ['ops'] }], get_page: [{ pageId: 'p1', maxBytes: 256 }] } },
);
