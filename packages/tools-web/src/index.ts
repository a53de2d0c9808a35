// Any export added here is public API: keep it named, documented and deliberate.

export { createWebTools, type WebToolsContext } from './create-web-tools';
