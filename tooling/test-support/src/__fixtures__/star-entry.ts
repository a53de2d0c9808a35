// An entry that re-exports everything of a module: its names are not spelled out, so it cannot be pinned.
export * from './sample-module';
