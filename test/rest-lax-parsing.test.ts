// src/modules/common/lax-parsing.ts against pydantic v2 (lax mode). Every expected outcome below was checked, while the
// tests were written, with pydantic 2.13 / pydantic-core 2.46 (TypeAdapter(int), TypeAdapter(bool),
// TypeAdapter(float), TypeAdapter(uuid.UUID); for UUIDs the text is `e.errors()[0]['ctx']['error']`). `undefined` stands for a
// ValidationError. The tests themselves never run Python.
import { describe, expect, it } from 'vitest';
import { parseLaxBool, parseLaxFloat, parseLaxInt, parseUuid } from '../src/modules/common/lax-parsing.ts';

/** A short, ASCII-only test name for any input. */
const show = (input: string) => {
  const json = JSON.stringify(input).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return json.length > 70 ? `${json.slice(0, 30)}…(${input.length} chars)` : json;
};
const NINES = '9'.repeat(4300);

describe('parseLaxInt (TypeAdapter(int) on a str)', () => {
  const accepted: [string, bigint][] = [
    ['5', 5n], ['-5', -5n], ['+5', 5n], ['-0', 0n], ['+0', 0n], ['00012', 12n],
    // Surrounding whitespace is Rust's char::is_whitespace, not JavaScript's trim() set.
    [' 5 ', 5n], ['\t5\n', 5n], ['\v5\v', 5n], ['\f5\r', 5n], ['\u00a05\u00a0', 5n], ['\u30005', 5n], ['5\u3000', 5n], ['5\u2028', 5n],
    ['\u20295', 5n], ['\u00855', 5n], ['5\u0085', 5n], ['\u16805', 5n], ['\u20005', 5n], ['\u200a5', 5n], ['\u202f5', 5n], ['\u205f5', 5n],
    // Underscores between digits, and a fraction of zeros.
    ['1_000', 1000n], ['1_0_0', 100n], ['+1_0', 10n], ['0_0', 0n], ['5.00', 5n], ['+5.0', 5n], ['-5.00', -5n], ['0.0', 0n], ['-0.0', 0n],
    ['1_000.00', 1000n], [' +1_000.00 ', 1000n], ['5_0.0', 50n], ['\u00a0+5.0\u00a0', 5n], ['5.0\n', 5n], ['5.000000000000000000000000', 5n],
    // Huge values stay exact, up to pydantic-core's 4300 characters.
    ['9223372036854775807', 9223372036854775807n], ['9223372036854775808', 9223372036854775808n],
    ['99999999999999999999999', 99999999999999999999999n], ['-99999999999999999999999', -99999999999999999999999n],
    ['99999999999999999999999.0', 99999999999999999999999n],
    [NINES, BigInt(NINES)], [`+${NINES}`, BigInt(NINES)], [`\u00a0${NINES} `, BigInt(NINES)], [`${NINES}.0`, BigInt(NINES)],
    [`0000000000${NINES}`, BigInt(NINES)], [`${NINES.slice(0, 2000)}_${NINES.slice(2000)}`, BigInt(NINES)], [`-${NINES.slice(1)}`, -BigInt(NINES.slice(1))],
  ];
  for (const [input, expected] of accepted) {
    it(`accepts ${show(input)}`, () => expect(parseLaxInt(input)).toBe(expected));
  }

  const rejected = [
    '', '  ', '+', '-', '+-5', '--5', '5 0', 'five',
    // Characters that are not whitespace to Rust (zero-width space, BOM, Mongolian vowel separator, C0 controls, NUL).
    '\u200b5', '\ufeff5', '\u180e5', '\u001c5', '5\u001f', '\u00005', '5.0\u0000',
    '1__000', '_1000', '1000_', '+_5', '-_5', '5_.0', '5.0_0', '1_000.0_0',
    '5.', '.0', '.', '+.0', '-.0', '5..0', '5.0.0', '5.5', '5 .0', '5. 0', '5.0 0',
    '0x10', '0o10', '0b10', '1e2', '1.0e1', 'inf', 'nan',
    // Other digits than ASCII ones.
    '\uff15', '\u0665', '\uff15.0',
  ];
  for (const input of rejected) {
    it(`rejects ${show(input)}`, () => expect(parseLaxInt(input)).toBeUndefined());
  }

  it('rejects integer strings past pydantic-core\'s 4300-character limit', () => {
    // int_parsing_size when the raw text is longer than 4300 characters (a minus sign counts, as does `.0`);
    // int_parsing when only stripping zeros or underscores made an integer of more than 4300 digits.
    const tooLong = { plain: `${NINES}9`, negative: `-${NINES}`, fraction: `${NINES}9.0`, zeros: `0000000000${NINES}9`, underscore: `${NINES.slice(0, 2000)}_${NINES.slice(2000)}9` };
    const parsed = Object.fromEntries(Object.entries(tooLong).map(([name, input]) => [name, parseLaxInt(input)?.toString().length]));
    // 'too-long' stands for int_parsing_size, undefined for int_parsing.
    expect(parsed).toEqual({ plain: 'too-long'.length, negative: 'too-long'.length, fraction: 'too-long'.length, zeros: undefined, underscore: undefined });
    expect([tooLong.plain, tooLong.negative, tooLong.fraction].map(parseLaxInt)).toEqual(['too-long', 'too-long', 'too-long']);
  });
});

describe('parseLaxBool (TypeAdapter(bool) on a str)', () => {
  const words: [string, boolean | undefined][] = [
    ['true', true], ['TRUE', true], ['True', true], ['tRuE', true], ['1', true], ['yes', true], ['YES', true], ['YeS', true],
    ['on', true], ['ON', true], ['t', true], ['T', true], ['y', true], ['Y', true],
    ['false', false], ['FALSE', false], ['0', false], ['no', false], ['NO', false], ['off', false], ['oFf', false],
    ['f', false], ['F', false], ['n', false], ['N', false],
    // Nothing around the word, no other spelling.
    [' true', undefined], ['true ', undefined], ['\ttrue', undefined], ['true\n', undefined], ['\u00a0true', undefined], [' 1', undefined],
    ['', undefined], ['2', undefined], ['-1', undefined], ['+1', undefined], ['01', undefined], ['1.0', undefined], ['0.0', undefined],
    ['truee', undefined], ['ye', undefined], ['of', undefined], ['nope', undefined], ['enabled', undefined], ['null', undefined],
    ['none', undefined], ['None', undefined], ['\uff34rue', undefined], ['\u212a', undefined], ['\u0130', undefined],
  ];
  for (const [input, expected] of words) {
    it(`${show(input)} → ${expected}`, () => expect(parseLaxBool(input)).toBe(expected));
  }
});

describe('parseLaxFloat (TypeAdapter(float) on a str)', () => {
  const readings: [string, number | undefined][] = [
    ['1.5', 1.5], [' 1.5 ', 1.5], ['\u00a01.5\u3000', 1.5], ['+1.5', 1.5], ['-0.25', -0.25], ['.5', 0.5], ['5.', 5], ['1e3', 1000], ['1E-2', 0.01],
    ['1.e5', 100000], ['007', 7], ['inf', Infinity], ['-INF', -Infinity], ['+Infinity', Infinity], ['nan', NaN], ['NaN', NaN],
    // Underscores between characters of the untrimmed text.
    ['1_000', 1000], ['1_0.5', 10.5], ['1_.5', 1.5], ['1._5', 1.5], ['1e1_0', 1e10],
    ['', undefined], [' ', undefined], ['_1', undefined], ['1_', undefined], ['1__0', undefined], [' 1_0', undefined], ['1_0 ', undefined],
    ['e1', undefined], ['1e', undefined], ['.', undefined], ['.e5', undefined], ['+-1', undefined], ['0x1', undefined], ['1,5', undefined],
    ['infinit', undefined], ['infinityx', undefined], ['1.5f', undefined], ['\u200b1', undefined], ['\u0663', undefined],
  ];
  for (const [input, expected] of readings) {
    it(`${show(input)} → ${expected}`, () => expect(parseLaxFloat(input)).toBe(expected));
  }
});

describe('parseUuid (TypeAdapter(uuid.UUID) on a str)', () => {
  const U = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11';
  const S = U.replaceAll('-', '');
  const accepted: [string, string][] = [
    [U, U], [U.toUpperCase(), U], ['A0EEBC99-9c0b-4EF8-bb6d-6BB9BD380A11', U], [`{${U}}`, U], [`{${U.toUpperCase()}}`, U],
    [`urn:uuid:${U}`, U], [`urn:uuid:${U.toUpperCase()}`, U], [S, U], [S.toUpperCase(), U],
    ['00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000'],
    ['FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
  ];
  for (const [input, expected] of accepted) {
    it(`accepts ${show(input)}`, () => expect(parseUuid(input)).toEqual({ uuid: expected }));
  }

  const length = (n: number) => `invalid length: expected length 32 for simple format, found ${n}`;
  const count = (n: number) => `invalid group count: expected 5, found ${n}`;
  const group = (g: number, n: number) => `invalid group length in group ${g}: expected ${[8, 4, 4, 4, 12][g]}, found ${n}`;
  const char = (c: string, at: number) => `invalid character: found \`${c}\` at ${at}`;
  const invalid: [string, string][] = [
    ['', length(0)], ['123', length(3)], [S.slice(0, -1), length(31)], [`${S}1`, length(33)], ['1'.repeat(38), length(38)],
    ['not-a-uuid', char('n', 1)], [`${S.slice(0, -1)}x`, char('x', 32)], [`a0eebc99_9c0b_4ef8_bb6d_6bb9bd380a11`, char('_', 9)],
    [` ${U}`, char(' ', 1)], [`${U} `, char(' ', 37)], [`${U}\n`, char('\n', 37)], [`URN:UUID:${U}`, char('U', 1)],
    // Non-ASCII characters: the character itself, at a 1-based byte position.
    [`é${U.slice(1)}`, char('é', 1)], [`${U.slice(0, 33)}é${U.slice(34)}`, char('é', 34)], [`😀${U.slice(1)}`, char('😀', 1)],
    [`ａ${U.slice(1)}`, char('ａ', 1)], [`${U.slice(0, 32)}€${U.slice(33)}`, char('€', 33)],
    [U.slice(0, -1), group(4, 11)], [`${U}1`, group(4, 13)], ['a0eebc99-9c0b-4ef8-bb6d6bb9bd380a11', count(4)],
    ['a0eebc99-9c0b-4ef8-bb6d-6bb9-bd380a11', count(6)], ['a0eebc999-c0b-4ef8-bb6d-6bb9bd380a11', group(0, 9)],
    ['a0eebc99-9c0b4-ef8-bb6d-6bb9bd380a11', group(1, 5)], ['a0eebc99-9c0b-4ef8b-b6d-6bb9bd380a11', group(2, 5)],
    ['a0eebc99-9c0b-4ef8-bb6d6-bb9bd380a11', group(3, 5)], ['----', group(0, 0)], ['-----', count(6)], ['a-b-c-d-e', group(0, 1)],
    ['a0eebc99--4ef8-bb6d-6bb9bd380a11', group(1, 0)],
    // Braces and urn:uuid: of another length than 38 / 45 bytes: positions count the prefix, the last group's
    // length is measured to the end of the whole input, and no simple (32-digit) form is tried inside.
    [`{${S}}`, count(1)], [`urn:uuid:${S}`, count(1)], [`{${U.slice(0, -1)}}`, group(4, 13)], [`urn:uuid:${U.slice(0, -1)}`, group(4, 20)],
    [`{${U}1}`, group(4, 15)], [`urn:uuid:${U}1`, group(4, 22)], ['{x}', char('x', 2)], ['{}', count(1)], ['{-}', count(2)],
    ['{', char('{', 1)], ['}', char('}', 1)], [`{${U}`, char('{', 1)], [`${U}}`, char('}', 37)], [`urn:uuid:{${U}}`, char('{', 10)],
    ['urn:uuid:', count(1)], [`{${U.slice(0, -1)}é}`, char('é', 37)],
  ];
  for (const [input, expected] of invalid) {
    it(`rejects ${show(input)}`, () => expect(parseUuid(input)).toEqual({ error: expected }));
  }

  // A braced input of exactly 38 bytes or a urn of exactly 45 is parsed as its inner 36 bytes, and its error
  // explained from those alone: positions without the prefix, and the simple-length message for 36 digits.
  const wrappedOfHyphenatedLength: [string, string][] = [
    [`{g${U.slice(1)}}`, char('g', 1)], [`urn:uuid:g${U.slice(1)}`, char('g', 1)],
    [`{${U.slice(0, -1)}x}`, char('x', 36)], [`urn:uuid:${U.slice(0, -1)}x`, char('x', 36)],
    [`{${'a'.repeat(36)}}`, length(36)], [`urn:uuid:${'a'.repeat(36)}`, length(36)],
    [`{{${U.slice(0, -1)}}`, char('{', 1)], [`{${U.slice(0, -2)}é}`, char('é', 35)],
  ];
  it('explains a 38-byte braced / 45-byte urn input from its inner 36 bytes, as the uuid crate does', () => {
    const actual = wrappedOfHyphenatedLength.map(([input]) => [input, parseUuid(input)]);
    expect(actual).toEqual(wrappedOfHyphenatedLength.map(([input, error]) => [input, { error }]));
  });
});
