/**
 * Derives an RxDB collection schema from the core zod shape of its documents (zod's `z.toJSONSchema`), so the fields of
 * an order, a shift or a catalog item are declared once, in core/.
 *
 * The register stores the top level only: each field with its JSON type (nullable when zod says so), arrays with the
 * type of their items, nested objects as `{ type: 'object' }`. RxDB needs no more — it runs no validator here, and the
 * register validates every record it writes with the core zod schema first (pulled records were validated by the
 * server) — and refinements, patterns, formats and bounds of the zod shape are left out. What RxDB itself needs is
 * given by hand: the version, the primary key, `maxLength` on the primary key and on indexed strings, the indexes, and
 * the register's own fields (server stamps, quarantine marker).
 *
 * RxDB refuses to open a stored collection whose schema differs from the one it was created with at the same version
 * (error DB6): whatever changes the output for an existing collection needs a new version and a migration strategy.
 * test/renderer/rx-schemas.test.ts pins each generated schema to the one stored databases hold.
 */
import type { JsonSchema, JsonSchemaTypes, RxJsonSchema } from 'rxdb';
import { z } from 'zod';

type Json = Record<string, unknown>;
type Field<T> = Extract<keyof T, string>;

export interface RxSchemaParts<T> {
  title: string;
  version: number;
  primaryKey: Field<T>;
  /**
   * `maxLength` of the string fields that need one: the primary key and indexed fields (RxDB refuses them without) —
   * and those the collection's schema gave one at its version.
   */
  maxLength?: Partial<Record<Field<T>, number>>;
  /** Top-level fields whose zod enum the RxDB schema keeps (the others are stored as their base type). */
  enums?: readonly Field<T>[];
  /**
   * The required fields the collection's schema lists: zod's required fields by default; a collection whose schema
   * listed fewer at its version names them here (each must be required in zod; they keep zod's order).
   */
  required?: readonly Field<T>[];
  indexes?: readonly Field<T>[];
  /** Fields the register keeps beside the core shape, or describes its own way (server stamps, quarantine marker). */
  extra?: Partial<Record<Field<T>, JsonSchema>>;
}

/** The RxDB schema of documents of `shape` (see the module comment). Throws when the shape cannot be stored as-is. */
export function rxSchemaFromZod<T>(shape: z.ZodType, parts: RxSchemaParts<T>): RxJsonSchema<T> {
  const json = z.toJSONSchema(shape, { io: 'output', unrepresentable: 'any' }) as Json;
  if (json.type !== 'object' || !json.properties) throw new Error(`${parts.title}: the core shape is not an object`);
  const zodProperties = json.properties as Record<string, Json>;
  const zodRequired = (json.required ?? []) as string[];

  const properties: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(zodProperties)) {
    const stored: JsonSchema = storedProperty(property, `${parts.title}.${name}`);
    if (parts.enums?.includes(name as Field<T>)) {
      if (!Array.isArray(property.enum)) throw new Error(`${parts.title}.${name}: no enum in the core shape`);
      stored.enum = property.enum;
    }
    properties[name] = stored;
  }
  for (const [name, property] of Object.entries(parts.extra ?? {})) properties[name] = property as JsonSchema;
  for (const [name, maxLength] of Object.entries(parts.maxLength ?? {})) {
    const property = properties[name];
    if (property?.type !== 'string') throw new Error(`${parts.title}.${name}: maxLength on a field that is not a string`);
    property.maxLength = maxLength as number;
  }
  if (!properties[parts.primaryKey]) throw new Error(`${parts.title}: no primary key field ${parts.primaryKey}`);

  const listed: readonly string[] = parts.required ?? zodRequired;
  const notRequired = listed.filter((name) => !zodRequired.includes(name));
  if (notRequired.length > 0) throw new Error(`${parts.title}: ${notRequired.join(', ')} not required in the core shape`);

  const schema = {
    title: parts.title,
    version: parts.version,
    primaryKey: parts.primaryKey,
    type: 'object',
    properties,
    required: zodRequired.filter((name) => listed.includes(name)),
    ...(parts.indexes ? { indexes: [...parts.indexes] } : {}),
  };
  return schema as unknown as RxJsonSchema<T>;
}

/** A field as the register stores it: its type, nullable or not; an array with the type of its items. */
function storedProperty(property: Json, where: string): JsonSchema {
  const type = baseType(property, where);
  if (type === 'array') return { type, items: { type: baseType((property.items ?? {}) as Json, `${where}[]`) } };
  return { type: isNullable(property) ? [type, 'null'] : type };
}

/** The one JSON type of a (possibly nullable, possibly union) property. */
function baseType(property: Json, where: string): JsonSchemaTypes {
  const branches = (property.anyOf ?? property.oneOf) as Json[] | undefined;
  if (branches) {
    const types = [...new Set(branches.filter((b) => b.type !== 'null').map((b) => baseType(b, where)))];
    if (types.length !== 1) throw new Error(`${where}: a union of ${types.join(', ') || 'nothing'} has no one type`);
    return types[0]!;
  }
  const types = (Array.isArray(property.type) ? property.type : [property.type]).filter((t) => t !== 'null');
  if (types.length !== 1 || typeof types[0] !== 'string') throw new Error(`${where}: no single type in the core shape`);
  return types[0] as JsonSchemaTypes;
}

function isNullable(property: Json): boolean {
  const branches = (property.anyOf ?? property.oneOf) as Json[] | undefined;
  return Array.isArray(property.type) ? property.type.includes('null') : (branches?.some((b) => b.type === 'null') ?? false);
}
