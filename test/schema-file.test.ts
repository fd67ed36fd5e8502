import fs from 'node:fs';
import path from 'node:path';
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, type GraphQLNamedType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config.ts';
import { printSchemaFile } from '../src/graphql/print-schema.ts';
import { schema } from '../src/graphql/schema.ts';

/** Every type, field, argument and input field of our own (not graphql's built-ins) that has no description. */
function undescribed(): string[] {
  const missing: string[] = [];
  const ownTypes = Object.values(schema.getTypeMap()).filter((type: GraphQLNamedType) => !type.name.startsWith('__'));
  for (const type of ownTypes) {
    if (['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
    if (!type.description) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!field.description) missing.push(`${type.name}.${field.name}`);
        for (const arg of field.args) if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
      }
    }
    if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) if (!field.description) missing.push(`${type.name}.${field.name}`);
    }
    if (isEnumType(type) && type.getValues().length === 0) missing.push(`${type.name} (no values)`);
  }
  return missing;
}

describe('schema.graphql', () => {
  it('is what the code generates (run `npm run schema` after changing the schema)', () => {
    const committed = fs.readFileSync(path.join(PROJECT_ROOT, 'schema.graphql'), 'utf8');
    expect(committed).toBe(printSchemaFile());
  });

  it('describes every type, field and argument', () => {
    expect(undescribed()).toEqual([]);
  });
});
