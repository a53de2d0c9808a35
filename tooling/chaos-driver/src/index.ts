// The chaos driver's entry (private, used from source by apps/worker's chaos test and the bench).
export {
  analyzeChaos,
  type ChaosEvidence,
  type ChaosFigures,
  type KillMoment,
  type KillRecord,
  type LedgerLine,
  parseLedger,
  percentile,
  type UnitJournal,
} from './chaos-analysis';
export { ChaosFleet, type ChaosFleetOptions, ChaosProcess } from './chaos-fleet';
export { AIMS, injectKills, type KillContext } from './chaos-kills';
export {
  type AnsweredCall,
  ChaosModel,
  type ChaosModelOptions,
  LEDGER_FILE,
  type ModelRequestRecord,
} from './chaos-model';
export {
  CHAOS_QUEUE_EXPIRY_SECONDS,
  CHAOS_QUEUE_POLICY,
  CHAOS_TURN_TIMEOUT_MS,
  type ChaosQueuePolicy,
} from './chaos-settings';
export { type ChaosUnitKind, ChaosUnits, unitPrompt } from './chaos-units';
export { CHAOS_AGENT, type ChaosRunOptions, type ChaosRunResult, runChaos, seededRandom } from './run-chaos';
