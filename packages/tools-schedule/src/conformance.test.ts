import { describeToolCategory } from '@switchyard/testkit/conformance';
import { memoryScheduleService } from './__fixtures__/memory-schedule-service';
import { createScheduleTools } from './index';

describeToolCategory(
  'schedule tools',
  () => createScheduleTools({ scheduleService: memoryScheduleService().service, agentId: 'ada' }),
  {
    samples: {
      create_schedule: [
        {
          name: 'standup',
          prompt: 'Post the standup notes.',
          cron: '0 9 * * 1-5',
          timeZone: 'Europe/Berlin',
        },
        { name: 'reminder', prompt: 'Check the deploy.', runAt: '2030-01-01T09:00:00Z' },
      ],
      list_schedules: [{}],
      cancel_schedule: [{ scheduleId: 's1' }],
    },
  },
);
