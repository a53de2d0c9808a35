// Any export added here is public API: keep it named, documented and deliberate.

export { type ComputerToolsContext, createComputerTools } from './create-computer-tools';
