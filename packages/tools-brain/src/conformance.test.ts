import { describeToolCategory } from '@switchyard/testkit/conformance';
import { seededBrainTools } from './__fixtures__/memory-brain';

const deploys = { title: 'Deploys', body: 'Run make deploy from main.', tags: ['ops'] };

describeToolCategory(
  'brain tools (read-write)',
  async () => (await seededBrainTools('read-write', deploys)).tools,
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
  async () => (await seededBrainTools('read-only', deploys)).tools,
  { samples: { recall: [{ query: 'deploy', tags: ['ops'] }], get_page: [{ pageId: 'p1', maxBytes: 256 }] } },
);
