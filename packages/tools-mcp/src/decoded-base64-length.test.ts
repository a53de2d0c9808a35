import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodedBase64Length } from './decoded-base64-length';

describe('decoded base64 length', () => {
  it('does not count padding as bytes', () => {
    expect(decodedBase64Length('')).toBe(0);
    expect(decodedBase64Length('AA==')).toBe(1);
    expect(decodedBase64Length('AAE=')).toBe(2);
    expect(decodedBase64Length('AAEC')).toBe(3);
    expect(decodedBase64Length('AAECAw==')).toBe(4);
  });

  it('reads unpadded base64 and skips whitespace, as atob does', () => {
    expect(decodedBase64Length('AA')).toBe(1);
    expect(decodedBase64Length('AAE')).toBe(2);
    expect(decodedBase64Length('AAEC\nAw=\n=\n')).toBe(4);
    expect(decodedBase64Length(' A A E C ')).toBe(3);
  });

  it('equals the decoded length of bytes of every length, padded, unpadded or wrapped at 76 characters', () => {
    for (let length = 0; length <= 300; length += 1) {
      const padded = randomBytes(length).toString('base64');
      const unpadded = padded.replace(/=+$/, '');
      const wrapped = padded.replace(/.{1,76}/g, '$&\r\n');
      for (const form of [padded, unpadded, wrapped]) {
        expect(atob(form).length).toBe(length);
        expect(decodedBase64Length(form)).toBe(length);
      }
    }
  });
});
