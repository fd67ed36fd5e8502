// Imports every domain's GraphQL file for its side effects, then builds the schema.
import { builder } from './builder.ts';
import '../modules/tenancy/tenant.graphql.ts';

export const schema = builder.toSchema();
