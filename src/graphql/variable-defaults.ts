import { Kind, type DocumentNode } from 'graphql';

/** Whether any operation of the document declares a default value for one of its variables. */
export function hasVariableDefaults(document: DocumentNode): boolean {
  return document.definitions.some((definition) =>
    definition.kind === Kind.OPERATION_DEFINITION && (definition.variableDefinitions ?? []).some((variable) => variable.defaultValue));
}
