import prismaSchemaWasm from '@prisma/prisma-schema-wasm';
import type pg from 'pg';

/**
 * The parts of a Postgres schema that schema.prisma declares, in one comparable shape: tables, columns
 * (type, nullability, default), primary keys, unique and plain indexes, foreign keys and enums. CHECK
 * constraints are not in schema.prisma and so not here.
 */
export interface SchemaShape {
  enums: Record<string, string[]>;
  tables: Record<string, TableShape>;
}

export interface TableShape {
  columns: Record<string, { type: string; nullable: boolean; default: string | null }>;
  primaryKey: { name: string; columns: string[] } | null;
  uniqueIndexes: Record<string, string[]>;
  indexes: Record<string, string[]>;
  foreignKeys: Record<
    string,
    { columns: string[]; references: string; referencedColumns: string[]; onDelete: string; onUpdate: string }
  >;
}

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  type: string;
  isRequired: boolean;
  isList: boolean;
  nativeType?: [string, string[]] | null;
  default?: unknown;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}

interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  fields: { name: string }[];
}

interface Dmmf {
  datamodel: {
    models: DmmfModel[];
    enums: { name: string; dbName: string | null; values: { name: string; dbName: string | null }[] }[];
    indexes: DmmfIndex[];
  };
}

/** Prisma's own parser (the schema engine's WebAssembly build), so nothing here re-implements the PSL. */
export function readDmmf(schemaText: string): Dmmf {
  return JSON.parse(
    prismaSchemaWasm.get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schemaText]] })),
  ) as Dmmf;
}

/** What a database migrated to match `schemaText` must look like, by Prisma's mapping rules. */
export function declaredShape(schemaText: string): SchemaShape {
  const { datamodel } = readDmmf(schemaText);
  const enumDbName = new Map(datamodel.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const tableOf = new Map(datamodel.models.map((model) => [model.name, model.dbName ?? model.name]));
  const shape: SchemaShape = {
    enums: Object.fromEntries(
      datamodel.enums.map((e) => [e.dbName ?? e.name, e.values.map((v) => v.dbName ?? v.name)]),
    ),
    tables: {},
  };
  for (const model of datamodel.models) {
    const table = tableOf.get(model.name)!;
    const columnOf = new Map(model.fields.map((field) => [field.name, field.dbName ?? field.name]));
    const columns = (names: { name: string }[] | string[]) =>
      names.map((n) => columnOf.get(typeof n === 'string' ? n : n.name)!);
    const shapeOfTable: TableShape = { columns: {}, primaryKey: null, uniqueIndexes: {}, indexes: {}, foreignKeys: {} };
    for (const field of model.fields) {
      if (field.kind === 'scalar' || field.kind === 'enum') {
        shapeOfTable.columns[columnOf.get(field.name)!] = {
          type: columnType(field, enumDbName),
          nullable: !field.isRequired,
          default: columnDefault(field, enumDbName),
        };
      }
      if (field.kind === 'object' && field.relationFromFields && field.relationFromFields.length > 0) {
        const from = columns(field.relationFromFields);
        const target = datamodel.models.find((m) => m.name === field.type)!;
        const targetColumns = new Map(target.fields.map((f) => [f.name, f.dbName ?? f.name]));
        shapeOfTable.foreignKeys[`${table}_${from.join('_')}_fkey`] = {
          columns: from,
          references: tableOf.get(field.type)!,
          referencedColumns: (field.relationToFields ?? []).map((name) => targetColumns.get(name)!),
          onDelete: (field.relationOnDelete ?? (field.isRequired ? 'Restrict' : 'SetNull')).toUpperCase(),
          onUpdate: (field.relationOnUpdate ?? 'Cascade').toUpperCase(),
        };
      }
    }
    for (const index of datamodel.indexes.filter((i) => i.model === model.name)) {
      const cols = columns(index.fields);
      if (index.type === 'id') shapeOfTable.primaryKey = { name: index.dbName ?? `${table}_pkey`, columns: cols };
      if (index.type === 'unique') shapeOfTable.uniqueIndexes[index.dbName ?? `${table}_${cols.join('_')}_key`] = cols;
      if (index.type === 'normal') shapeOfTable.indexes[index.dbName ?? `${table}_${cols.join('_')}_idx`] = cols;
    }
    shape.tables[table] = shapeOfTable;
  }
  return shape;
}

/** Postgres's own spelling (format_type) of the column type Prisma creates for a field. */
function columnType(field: DmmfField, enumDbName: Map<string, string>): string {
  if (field.isList) throw new Error(`list field ${field.name}: not handled by this comparison`);
  if (field.kind === 'enum') return enumDbName.get(field.type)!;
  const [native, args] = field.nativeType ?? [null, []];
  const withArgs = (base: string) => (args.length > 0 ? `${base}(${args.join(',')})` : base);
  switch (native) {
    case null:
      break;
    case 'Uuid':
      return 'uuid';
    case 'Text':
      return 'text';
    case 'Char':
      return withArgs('character');
    case 'VarChar':
      return withArgs('character varying');
    case 'Timestamptz':
      return `timestamp(${args[0] ?? 6}) with time zone`;
    case 'Timestamp':
      return `timestamp(${args[0] ?? 6}) without time zone`;
    case 'BigInt':
      return 'bigint';
    case 'Integer':
      return 'integer';
    default:
      throw new Error(`native type @db.${native} of ${field.name}: not handled by this comparison`);
  }
  const defaults: Record<string, string> = {
    String: 'text',
    BigInt: 'bigint',
    Int: 'integer',
    Boolean: 'boolean',
    DateTime: 'timestamp(3) without time zone',
    Json: 'jsonb',
    Bytes: 'bytea',
    Float: 'double precision',
    Decimal: 'numeric(65,30)',
  };
  return defaults[field.type] ?? fail(`type ${field.type} of ${field.name}`);
}

/** The default expression Postgres reports (pg_get_expr) for what @default declares; null if none in the database. */
function columnDefault(field: DmmfField, enumDbName: Map<string, string>): string | null {
  const value = field.default;
  if (value === undefined || value === null) return null;
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { name, args } = value as { name: string; args: unknown[] };
    if (name === 'dbgenerated') return String(args[0]);
    if (name === 'now') return 'CURRENT_TIMESTAMP';
    if (name === 'uuid' || name === 'cuid' || name === 'nanoid' || name === 'ulid') return null;
    return fail(`default ${name}() of ${field.name}`);
  }
  if (field.kind === 'enum') return `'${String(value)}'::${enumDbName.get(field.type)}`;
  if (field.type === 'String') return `'${String(value)}'::text`;
  return String(value);
}

function fail(what: string): never {
  throw new Error(`${what}: not handled by this comparison`);
}

const REFERENTIAL_ACTIONS: Record<string, string> = {
  a: 'NOACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SETNULL',
  d: 'SETDEFAULT',
};

/** The same shape read from the catalog of a live database (schema public, Prisma's bookkeeping excluded). */
export async function databaseShape(pool: pg.Pool): Promise<SchemaShape> {
  const shape: SchemaShape = { enums: {}, tables: {} };
  const enums = await pool.query<{ name: string; labels: string[] }>(`
    SELECT t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
    FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = 'public' GROUP BY t.typname`);
  for (const row of enums.rows) shape.enums[row.name] = row.labels;

  const columns = await pool.query<{
    table: string;
    column: string;
    type: string;
    not_null: boolean;
    default: string | null;
  }>(`
    SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
           a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
    WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '_prisma_migrations'
    ORDER BY c.relname, a.attnum`);
  for (const row of columns.rows) {
    shape.tables[row.table] ??= { columns: {}, primaryKey: null, uniqueIndexes: {}, indexes: {}, foreignKeys: {} };
    shape.tables[row.table].columns[row.column] = { type: row.type, nullable: !row.not_null, default: row.default };
  }

  const indexes = await pool.query<{
    table: string;
    name: string;
    primary: boolean;
    unique: boolean;
    columns: string[];
  }>(`
    SELECT t.relname AS table, i.relname AS name, x.indisprimary AS primary, x.indisunique AS unique,
           array_agg(a.attname::text ORDER BY k.ord) AS columns
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
    WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'
    GROUP BY t.relname, i.relname, x.indisprimary, x.indisunique`);
  for (const row of indexes.rows) {
    const table = shape.tables[row.table];
    if (row.primary) table.primaryKey = { name: row.name, columns: row.columns };
    else if (row.unique) table.uniqueIndexes[row.name] = row.columns;
    else table.indexes[row.name] = row.columns;
  }

  const foreignKeys = await pool.query<{
    table: string;
    name: string;
    columns: string[];
    references: string;
    referenced_columns: string[];
    on_delete: string;
    on_update: string;
  }>(`
    SELECT t.relname AS table, c.conname AS name,
           (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
              JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns,
           r.relname AS references,
           (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
              JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum) AS referenced_columns,
           c.confdeltype AS on_delete, c.confupdtype AS on_update
    FROM pg_constraint c
    JOIN pg_class t ON t.oid = c.conrelid
    JOIN pg_class r ON r.oid = c.confrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE c.contype = 'f' AND n.nspname = 'public'`);
  for (const row of foreignKeys.rows) {
    shape.tables[row.table].foreignKeys[row.name] = {
      columns: row.columns,
      references: row.references,
      referencedColumns: row.referenced_columns,
      onDelete: REFERENTIAL_ACTIONS[row.on_delete],
      onUpdate: REFERENTIAL_ACTIONS[row.on_update],
    };
  }
  return shape;
}
