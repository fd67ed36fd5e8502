// A small declarative description of pydantic v2 request models (BaseModel, default config: lax, unknown keys
// ignored), written once and read three ways: validation (request-model-validation.ts), the TypeScript type
// of a valid body (ModelValue), and the JSON Schema pydantic would publish for it (jsonSchemaOf).

export type FieldType =
  | { readonly kind: 'string' }
  | { readonly kind: 'int' | 'float'; readonly ge?: number; readonly le?: number }
  | { readonly kind: 'bool' }
  | { readonly kind: 'uuid' }
  /** `Literal['a', 'b']`: written inline in the schema; a wrong value is `literal_error`. */
  | { readonly kind: 'literal'; readonly values: readonly string[] }
  /** A Python `Enum` class: its own component (`$ref`); a wrong value is `enum`. */
  | { readonly kind: 'enum'; readonly name: string; readonly values: readonly string[] }
  | { readonly kind: 'list'; readonly items: FieldType }
  /** `dict[str, T]`; `'any'` is a free-form object (`dict[str, Any]`). */
  | { readonly kind: 'dict'; readonly values: FieldType | 'any' }
  | { readonly kind: 'model'; readonly model: RequestModel };

export interface FieldSpec {
  readonly type: FieldType;
  /** Listed in the schema's `required`: absent is `missing`. */
  readonly required: boolean;
  /** `anyOf [T, null]`: null is a value. Otherwise null is checked against T, and fails (`"name": null` → string_type). */
  readonly nullable: boolean;
  readonly description?: string;
}

export interface RequestModel<Fields extends Record<string, FieldSpec> = Record<string, FieldSpec>> {
  /** The component name in the OpenAPI document (`ResourceSpec-Input`). */
  readonly name: string;
  /** The JSON Schema title: the pydantic class name. */
  readonly title: string;
  readonly description?: string;
  /** In declaration order, which is the order pydantic validates and reports errors in. */
  readonly fields: Fields;
}

// The vocabulary the declarations are written in.
export const string = { kind: 'string' } as const;
export const int = { kind: 'int' } as const;
export const float = { kind: 'float' } as const;
export const bool = { kind: 'bool' } as const;
export const uuid = { kind: 'uuid' } as const;
export const freeForm = { kind: 'dict', values: 'any' } as const;
export const ranged = <const Kind extends 'int' | 'float'>(kind: Kind, ge: number, le: number) => ({ kind, ge, le });
/**
 * One of fixed strings, as pydantic's `Literal[...]`: inline in the document, `literal_error` when wrong. The
 * original declares its request models' value sets so (`source`, `deployment_type`, `revision_source`).
 */
export const oneOf = <const Values extends readonly string[]>(values: Values) => ({ kind: 'literal' as const, values });
/** One of an `Enum` class's values: a component of its own (`name`), `enum` when wrong. */
export const enumOf = <const Values extends readonly string[]>(name: string, values: Values) => ({ kind: 'enum' as const, name, values });
export const listOf = <const Items extends FieldType>(items: Items) => ({ kind: 'list' as const, items });
export const dictOf = <const Values extends FieldType>(values: Values) => ({ kind: 'dict' as const, values });
export const nested = <const Model extends RequestModel>(model: Model) => ({ kind: 'model' as const, model });

/** Must be present and not null. */
export const required = <const Type extends FieldType>(type: Type, description?: string) =>
  ({ type, required: true, nullable: false, ...(description !== undefined && { description }) }) as const;
/** May be absent or null (`Optional[T]`). */
export const optional = <const Type extends FieldType>(type: Type, description?: string) =>
  ({ type, required: false, nullable: true, ...(description !== undefined && { description }) }) as const;
/** May be absent, but not null: in the schema, not in `required` and not `anyOf [T, null]`. */
export const optionalNotNull = <const Type extends FieldType>(type: Type, description?: string) =>
  ({ type, required: false, nullable: false, ...(description !== undefined && { description }) }) as const;

export function model<const Fields extends Record<string, FieldSpec>>(
  name: string, fields: Fields, about: { title?: string; description?: string } = {},
): RequestModel<Fields> {
  return { name, title: about.title ?? name, ...(about.description !== undefined && { description: about.description }), fields };
}

// The TypeScript type of a valid body: required keys present, optional ones possibly absent.
type ValueOf<Type> =
  Type extends { kind: 'string' | 'uuid' } ? string
    : Type extends { kind: 'int' | 'float' } ? number
      : Type extends { kind: 'bool' } ? boolean
        : Type extends { kind: 'literal' | 'enum'; values: readonly (infer Value)[] } ? Value
          : Type extends { kind: 'list'; items: infer Items } ? Array<ValueOf<Items>>
            : Type extends { kind: 'dict'; values: 'any' } ? Record<string, unknown>
              : Type extends { kind: 'dict'; values: infer Values } ? Record<string, ValueOf<Values>>
                : Type extends { kind: 'model'; model: infer Model extends RequestModel } ? ModelValue<Model>
                  : never;
type FieldValue<Field extends FieldSpec> = Field['nullable'] extends true ? ValueOf<Field['type']> | null : ValueOf<Field['type']>;
type Fields<Model extends RequestModel> = Model['fields'];
export type ModelValue<Model extends RequestModel> = {
  -readonly [Key in keyof Fields<Model> as Fields<Model>[Key]['required'] extends true ? Key : never]: FieldValue<Fields<Model>[Key]>
} & {
  -readonly [Key in keyof Fields<Model> as Fields<Model>[Key]['required'] extends true ? never : Key]?: FieldValue<Fields<Model>[Key]>
};

type JsonSchema = Record<string, unknown>;

/** pydantic's default title of a field: Python's `str.title()`, underscores as spaces (`k8s_namespace` → `K8S Namespace`). */
function titleOf(name: string): string {
  return name.replace(/\p{L}+/gu, (word) => word[0]!.toUpperCase() + word.slice(1).toLowerCase()).replaceAll('_', ' ');
}

const enumRef = (name: string) => `#/components/schemas/${name}`;

function typeSchema(type: FieldType, ref: (model: RequestModel) => string): JsonSchema {
  switch (type.kind) {
    case 'string': return { type: 'string' };
    case 'int':
    case 'float':
      return { type: type.kind === 'int' ? 'integer' : 'number', ...(type.ge !== undefined && { minimum: type.ge }), ...(type.le !== undefined && { maximum: type.le }) };
    case 'bool': return { type: 'boolean' };
    case 'uuid': return { type: 'string', format: 'uuid' };
    case 'literal': return { enum: [...type.values], type: 'string' };
    case 'enum': return { $ref: enumRef(type.name) };
    case 'list': return { type: 'array', items: typeSchema(type.items, ref) };
    case 'dict': return { type: 'object', additionalProperties: type.values === 'any' ? true : typeSchema(type.values, ref) };
    case 'model': return { $ref: ref(type.model) };
  }
}

/**
 * The JSON Schema (OpenAPI 3.1) of a model, as pydantic v2 writes it: `anyOf [T, null]` for nullable fields,
 * `required`, `minimum`/`maximum`, a Literal's `enum` inline, a title per field but models and Enum classes.
 * Nested models and Enum classes are `$ref`s; no `default` is written, as in the original.
 */
export function jsonSchemaOf(model: RequestModel, ref = (nested: RequestModel) => `#/components/schemas/${nested.name}`): JsonSchema {
  const properties = Object.fromEntries(Object.entries(model.fields).map(([name, field]) => {
    const schema = typeSchema(field.type, ref);
    return [name, {
      ...(field.nullable ? { anyOf: [schema, { type: 'null' }] } : schema),
      // pydantic refers to models and Enum classes (own components), and a reference gets no title.
      ...(field.type.kind !== 'model' && field.type.kind !== 'enum' && { title: titleOf(name) }),
      ...(field.description !== undefined && { description: field.description }),
    }];
  }));
  const required = Object.entries(model.fields).filter(([, field]) => field.required).map(([name]) => name);
  return {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    title: model.title,
    ...(model.description !== undefined && { description: model.description }),
  };
}

/** The schemas of the given models and of every model and Enum class they contain, by component name. */
export function componentSchemasOf(models: readonly RequestModel[]): Record<string, JsonSchema> {
  const found = new Map<string, RequestModel>();
  const enums = new Map<string, JsonSchema>();
  const visit = (type: FieldType): void => {
    if (type.kind === 'enum') enums.set(type.name, { enum: [...type.values], title: type.name, type: 'string' });
    else if (type.kind === 'list') visit(type.items);
    else if (type.kind === 'dict' && type.values !== 'any') visit(type.values);
    else if (type.kind === 'model') collect(type.model);
  };
  const collect = (model: RequestModel): void => {
    if (found.has(model.name)) return;
    found.set(model.name, model);
    for (const field of Object.values(model.fields)) visit(field.type);
  };
  models.forEach(collect);
  return { ...Object.fromEntries([...found].map(([name, model]) => [name, jsonSchemaOf(model)])), ...Object.fromEntries(enums) };
}
