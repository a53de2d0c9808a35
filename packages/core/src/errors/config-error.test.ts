import { describe, expect, it } from 'vitest';
import { type ConfigErrorOptions, SwitchyardConfigError } from './config-error';
import { SwitchyardError } from './switchyard-error';

class ExampleConfigError extends SwitchyardConfigError {
  constructor(options: ConfigErrorOptions) {
    super('ExampleConfigError', 'example tools', options);
  }

  static override isInstance(value: unknown): value is ExampleConfigError {
    return SwitchyardConfigError.hasMark(value, 'ExampleConfigError');
  }
}

class BareConfigError extends SwitchyardConfigError {
  constructor(options: ConfigErrorOptions) {
    super('BareConfigError', undefined, options);
  }
}

describe('SwitchyardConfigError', () => {
  it('names the field and what is wrong, with the subject when given', () => {
    const cause = new RangeError('too small');
    const error = new ExampleConfigError({ field: 'limits.maxBytes', message: 'must be positive', cause });
    expect(error.message).toBe('Invalid example tools configuration: limits.maxBytes: must be positive');
    expect(error.name).toBe('ExampleConfigError');
    expect(error.field).toBe('limits.maxBytes');
    expect(error.cause).toBe(cause);
    const bare = new BareConfigError({ field: 'poll', message: 'must be a number' });
    expect(bare.message).toBe('poll: must be a number');
    expect(bare.cause).toBeUndefined();
  });

  it('is recognised by its marks: the base for every subclass, a subclass for its own', () => {
    const example = new ExampleConfigError({ field: 'a', message: 'b' });
    const bare = new BareConfigError({ field: 'a', message: 'b' });
    expect(SwitchyardConfigError.isInstance(example)).toBe(true);
    expect(SwitchyardConfigError.isInstance(bare)).toBe(true);
    expect(SwitchyardError.isInstance(bare)).toBe(true);
    expect(ExampleConfigError.isInstance(example)).toBe(true);
    expect(ExampleConfigError.isInstance(bare)).toBe(false);
    expect(ExampleConfigError.isInstance({ ...example })).toBe(false);
    expect(SwitchyardConfigError.isInstance(new SwitchyardError('a: b'))).toBe(false);
    expect(SwitchyardConfigError.isInstance(null)).toBe(false);
  });
});
