/**
 * A path the model gave cannot be used: it leaves the agent home, does not exist, is the wrong kind
 * of file, ... The message is written for the model, which gets it as an `isError` tool result.
 */
export class HomePathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HomePathError';
  }
}
