import type { AnyWorkerAgentTool } from '@switchyard/core';
import type { BrainService } from './brain-service';
import { BrainToolsConfigError } from './errors/brain-tools-config-error';
import { createForgetTool } from './forget-tool';
import { createGetPageTool } from './get-page-tool';
import { createRecallTool } from './recall-tool';
import { createRememberTool } from './remember-tool';

/** Which Brain tools a turn gets. */
export type BrainToolsMode = 'read-write' | 'read-only';

/** What `createBrainTools` needs from the turn. */
export interface BrainToolsContext {
  /** Where pages live: `controlPlane.brain` from `@switchyard/control-plane`. */
  brain: BrainService;
  /** The calling agent: every tool acts on this agent's pages only. */
  agentId: string;
  /**
   * `read-write` (an ordinary text turn): `remember`, `recall`, `get_page`, `forget`. `read-only` (a
   * workflow task or background job turn): `recall` and `get_page`.
   */
  mode: BrainToolsMode;
}

const READ_METHODS = ['recall', 'getPage'] as const;
const WRITE_METHODS = ['remember', 'forget'] as const;

/**
 * Creates the Brain tools of one turn, scoped to `agentId`: `remember`, `recall`, `get_page` and
 * `forget` in `read-write` mode, in that order; `recall` and `get_page` in `read-only` mode.
 *
 * Contract: cheap and free of I/O; throws `BrainToolsConfigError` naming the field (`error.field`) when
 * `brain` lacks a method the mode needs, `agentId` is not a non-empty string, or `mode` is neither mode. The service's
 * refusals (a page over the size limit, an unknown id) become `isError` results the model can act on.
 * Page text reaches the model inside untrusted-content markers.
 *
 * @example
 * const textTurnTools = createBrainTools({ brain: controlPlane.brain, agentId: 'ada', mode: 'read-write' });
 * const taskTurnTools = createBrainTools({ brain: controlPlane.brain, agentId: 'ada', mode: 'read-only' });
 */
export function createBrainTools(context: BrainToolsContext): AnyWorkerAgentTool[] {
  const mode = context?.mode;
  if (mode !== 'read-write' && mode !== 'read-only') {
    throw new BrainToolsConfigError({
      field: 'mode',
      message: `must be 'read-write' or 'read-only', got ${JSON.stringify(mode)}`,
    });
  }
  const { brain, agentId } = context;
  const needed = mode === 'read-write' ? [...READ_METHODS, ...WRITE_METHODS] : READ_METHODS;
  for (const method of needed) {
    if (typeof brain?.[method] !== 'function') {
      throw new BrainToolsConfigError({
        field: 'brain',
        message: `must implement BrainService (missing ${method})`,
      });
    }
  }
  if (typeof agentId !== 'string' || agentId.trim() === '') {
    throw new BrainToolsConfigError({
      field: 'agentId',
      message: `must be a non-empty string, got ${JSON.stringify(agentId)}`,
    });
  }
  const recall = createRecallTool(brain, agentId);
  const getPage = createGetPageTool(brain, agentId);
  if (mode === 'read-only') return [recall, getPage];
  return [createRememberTool(brain, agentId), recall, getPage, createForgetTool(brain, agentId)];
}
