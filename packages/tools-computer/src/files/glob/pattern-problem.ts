/** A pattern this matcher refuses: its message is what the model reads (`compileGlob` returns it as `problem`). */
export class PatternProblem extends Error {}
