// src/rest/json-body.ts: a request body read as FastAPI 0.11x reads one before validating it (routing.py:
// `json.loads` on the bytes, a `json_invalid` item with Python's message and position, `missing` for no body,
// 400 for bytes that do not decode). Messages and positions are CPython 3.13's json module's, checked while
// the tests were written against `json.loads(body_bytes)`; the tests never run Python.
import { describe, expect, it } from 'vitest';
import { isJsonContentType, jsonInvalid, parseJsonBody } from '../src/rest/json-body.ts';

const MISSING = { ok: false, status: 422, errors: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] };
const invalid = (position: number, error: string) =>
  ({ ok: false, status: 422, errors: [{ type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error } }] });
const parse = (text: string, contentType?: string) => parseJsonBody(Buffer.from(text, 'utf8'), contentType);

describe('parseJsonBody', () => {
  it('gives the parsed value of a JSON body', () => {
    expect(parse('{"name":"my-app","secrets":[]}', 'application/json')).toEqual({ ok: true, value: { name: 'my-app', secrets: [] } });
    expect(parse(' [1, 2.5, "x"] ')).toEqual({ ok: true, value: [1, 2.5, 'x'] });
  });

  it('answers no body, an empty one and a JSON null alike: `missing` at body, input null', () => {
    expect(parseJsonBody(undefined)).toEqual(MISSING);
    expect(parseJsonBody(Buffer.alloc(0), 'application/json')).toEqual(MISSING);
    expect(parse('null')).toEqual(MISSING);
    expect(parse(' null\n')).toEqual(MISSING);
  });

  it.each([
    [' ', 1, 'Expecting value'],
    ['x', 0, 'Expecting value'],
    ['{', 1, 'Expecting property name enclosed in double quotes'],
    ["{'name': 'a'}", 1, 'Expecting property name enclosed in double quotes'],
    ['{"name"', 7, 'Expecting \':\' delimiter'],
    ['{"name": }', 9, 'Expecting value'],
    ['{"a": 1 "b": 2}', 8, 'Expecting \',\' delimiter'],
    ['{"a": 1,}', 7, 'Illegal trailing comma before end of object'],
    ['[1, 2,]', 5, 'Illegal trailing comma before end of array'],
    ['[1 2]', 3, 'Expecting \',\' delimiter'],
    ['{"a": 1}}', 8, 'Extra data'],
    ['{"a": 1} x', 9, 'Extra data'],
    ['01', 1, 'Extra data'],
    ['"abc', 0, 'Unterminated string starting at'],
    ['{"a": "x\\"}', 6, 'Unterminated string starting at'],
    ['"a\\qb"', 2, 'Invalid \\escape'],
    ['"a\\u12"', 3, 'Invalid \\uXXXX escape'],
    ['"a\tb"', 2, 'Invalid control character at'],
    ['{"a":[1,{"b":}]}', 13, 'Expecting value'],
    ['tru', 0, 'Expecting value'],
    ['-', 0, 'Expecting value'],
  ])('refuses %j as Python does: position %i, %s', (text, position, error) => {
    expect(parse(text, 'application/json')).toEqual(invalid(position, error));
  });

  it('counts the position in characters, as Python does, not in UTF-16 units or bytes', () => {
    expect(parse('{"😀é": x}')).toEqual(invalid(7, 'Expecting value'));
  });

  it('refuses NaN and Infinity, which Python would read as numbers (a deliberate difference)', () => {
    expect(parse('{"cpu": NaN}')).toEqual(invalid(8, 'Expecting value'));
    expect(parse('[-Infinity]')).toEqual(invalid(1, 'Expecting value'));
  });

  it('reads the encodings json.loads detects: UTF-8 with its BOM, UTF-16 and UTF-32', () => {
    const body = '{"name":"é"}';
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]);
    const utf16be = Buffer.from(body, 'utf16le').swap16();
    const utf32le = Buffer.alloc(body.length * 4);
    [...body].forEach((c, i) => utf32le.writeUInt32LE(c.codePointAt(0)!, i * 4));
    for (const bytes of [bom, Buffer.from(body, 'utf16le'), utf16be, utf32le]) {
      expect(parseJsonBody(bytes, 'application/json')).toEqual({ ok: true, value: { name: 'é' } });
    }
  });

  it('answers 400 to bytes that are not UTF-8', () => {
    expect(parseJsonBody(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))).toEqual({ ok: false, status: 400, detail: 'There was an error parsing the body' });
  });

  it('hands a body of another Content-Type to the model as text, unparsed', () => {
    expect(parse('{"name": "a"}', 'text/plain')).toEqual({ ok: true, value: '{"name": "a"}' });
    expect(parse('{', 'application/x-www-form-urlencoded')).toEqual({ ok: true, value: '{' });
    expect(parse('', 'text/plain')).toEqual(MISSING);
  });
});

describe('isJsonContentType (FastAPI reads these bodies as JSON)', () => {
  it.each([
    ['application/json', true], ['Application/JSON; charset=utf-8', true], [' application/json ;x=y', true],
    ['application/merge-patch+json', true], ['application/vnd.api+json', true],
    ['text/json', false], ['application/jsonx', false], ['application/ json', false], ['application/json/x', false], ['json', false],
  ])('%j → %s', (value, expected) => expect(isJsonContentType(value)).toBe(expected));
});

describe('jsonInvalid', () => {
  it('is the item FastAPI writes for a text json.loads refuses', () => {
    expect(jsonInvalid('{"a": tru}')).toEqual({ type: 'json_invalid', loc: ['body', 6], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } });
  });
});
