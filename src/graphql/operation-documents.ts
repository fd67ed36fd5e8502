// The document step: a document's text to its parsed and validated DocumentNode, by the envelop's own parse and
// validate (Yoga's parser cache, graphql-armor's limits, the introspection rule, and every plugin's onValidate,
// the operation metrics' count of refused documents included), so the rules a document is judged by are the
// plugin list's in app.ts and nowhere else. A valid document's verdict never changes, so it is remembered; an
// invalid one goes through the envelop again at each request, as Yoga's own path does.
import { getOperationAST, type DocumentNode, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';

/** As many documents as Yoga's parse cache keeps by default; the oldest remembered is forgotten first. */
const MAX_DOCUMENTS = 1000;

/** What the document step needs of the envelop: `yoga.getEnveloped(...)` is one. */
export interface DocumentEnvelop {
  schema: GraphQLSchema;
  parse(text: string): DocumentNode;
  validate(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[];
}

/** An operation ready to run: its document, and the operation its name picks there (none: execution says why). */
export interface RunnableOperation {
  document: DocumentNode;
  operationName: string | undefined;
  operation: OperationDefinitionNode | null | undefined;
}

export const runnableOperation = (document: DocumentNode, operationName: string | null | undefined): RunnableOperation =>
  ({ document, operationName: operationName ?? undefined, operation: getOperationAST(document, operationName) });

export class OperationDocuments {
  readonly #valid = new Map<string, DocumentNode>();
  readonly #envelop: (operationName: string | undefined) => DocumentEnvelop;

  /** `envelop`: the envelop of a request naming `operationName` (Yoga's parse checks that it names one). */
  constructor(envelop: (operationName: string | undefined) => DocumentEnvelop) {
    this.#envelop = envelop;
  }

  /**
   * The validated document of `text`, or its validation errors; throws what parsing throws (a syntax error, or
   * an operation name the document does not have).
   */
  find(text: string, operationName: string | undefined): DocumentNode | readonly GraphQLError[] {
    const known = this.#valid.get(text);
    if (known) return known;
    const envelop = this.#envelop(operationName);
    const document = envelop.parse(text);
    const errors = envelop.validate(envelop.schema, document);
    if (errors.length > 0) return errors;
    if (this.#valid.size >= MAX_DOCUMENTS) this.#valid.delete(this.#valid.keys().next().value!);
    this.#valid.set(text, document);
    return document;
  }
}
