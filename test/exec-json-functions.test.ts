// The JSON functions' parser and path steps (exec/compile/json-functions.ts); SQL-level behaviour
// is in test/sql/types/json.slt.

import { describe, expect, it } from 'vitest';
import { isJsonScalar, jsonArrayLength, jsonExtract, jsonExtractScalar, jsonParse } from '../src/exec/compile/json-functions.js';

describe('JSON text', () => {
  it('accepts exactly one JSON value, whitespace around it allowed', () => {
    expect(jsonParse(' [ 1 , { "a" : "b" } ] \n')).toBe('[1,{"a":"b"}]');
    for (const bad of ['', '[1,]', '{"a" 1}', '01', '1.', '.5', '[1] [2]', "{'a': 1}", '"unterminated', 'tru', '{"a":1,}', 'NaN', '"tab\there"']) {
      expect(() => jsonParse(bad), bad).toThrow(/Cannot convert value to JSON/);
      expect(jsonArrayLength(bad), bad).toBeNull();
    }
  });

  it('keeps numbers as written and decodes string escapes', () => {
    expect(jsonExtractScalar('{"n": -0.50e+2}', '$.n')).toBe('-0.50e+2');
    expect(jsonExtractScalar('{"s": "a\\"b\\u00e9\\n"}', '$.s')).toBe('a"bé\n');
    expect(jsonExtract('{"s": "a\\"b"}', '$.s')).toBe('"a\\"b"');
    expect(jsonExtractScalar('{"k\\"q": 1}', '$["k\\"q"]')).toBe('1');
  });

  it('takes the first of repeated keys, and refuses nesting deeper than 1000', () => {
    expect(jsonExtractScalar('{"a": 1, "a": 2}', '$.a')).toBe('1');
    expect(jsonArrayLength(`${'['.repeat(1000)}${']'.repeat(1000)}`)).toBe(1);
    expect(jsonArrayLength(`${'['.repeat(1002)}${']'.repeat(1002)}`)).toBeNull();
  });

  it('refuses paths that are not $-rooted member and index steps', () => {
    for (const bad of ['a', '$a', '$.', '$[x]', '$[-1]', '$..a', '$.a[']) expect(() => jsonExtract('{}', bad), bad).toThrow(/Invalid JSON path/);
    expect(jsonExtract('{"a": [5]}', ' $.a[0] ')).toBe('5');
  });

  it('is_json_scalar fails on text that is not JSON', () => {
    expect(isJsonScalar('null')).toBe(true);
    expect(() => isJsonScalar('{')).toThrow(/Invalid JSON value/);
  });
});
