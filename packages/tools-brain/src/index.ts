// Any export added here is public API: keep it named, documented and deliberate.

export type { BrainHit, BrainPage, BrainService, BrainWriteOutcome } from './brain-service';
export { type BrainToolsContext, type BrainToolsMode, createBrainTools } from './create-brain-tools';
export { BrainToolsConfigError } from './errors/brain-tools-config-error';
