import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './schema.ts';

/** schema.graphql's content: sorted, so that moving code around does not churn the file. */
export function printSchemaFile(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
