import {
  type GraphQLField,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isInterfaceType,
  isLeafType,
  isNonNullType,
  isObjectType,
  isUnionType,
} from 'graphql';

/** How much of the graph a generated selection reads. */
export interface SelectionBudget {
  /** Object levels below the root field's own type (0: its scalars only). */
  depth: number;
  /** Fields per selection set (`__typename` and `pageInfo` are not counted). */
  breadth: number;
  /** Page size written into nested connections. */
  pageSize?: number;
  /** Largest selection in bytes; fields past it are left out. Default `MAX_SELECTION_BYTES`. */
  maxBytes?: number;
}

/**
 * At the largest depth and breadth allowed, one generated document can reach megabytes (7 MB for a
 * GitHub root field at depth 10, breadth 200): the bytes are capped too, and what is left out named.
 */
export const MAX_SELECTION_BYTES = 16_384;

/** A generated selection and the fields the byte cap left out (`Type.field`). */
export interface BoundedSelection {
  selection: string;
  dropped: string[];
}

/**
 * Fields one build may look at, chosen or not. The bytes bound what a selection holds, not the
 * work of finding it: a schema's type of 8,000 fields, each of that type and none with a scalar
 * the build may take, made every field's sub-selection come back empty, and one call's build took
 * 49 s (F² fields at depth 1, F^(depth+1) deeper) with every other call waiting.
 */
const MAX_SELECTION_WORK = 20_000;

// Shared by one build: the bytes left, what did not fit, and the fields it may still look at.
interface Room {
  left: number;
  dropped: string[];
  work: number;
}

type AnyField = GraphQLField<unknown, unknown>;

/**
 * The selection set a root field's tool asks for when the caller gives no `select`, e.g.
 * `{ id name owner { id login } issues(first: 10) { totalCount pageInfo { hasNextPage endCursor } nodes { id title } } }`.
 * Scalars come first (`id` leading), then objects and connections while the depth lasts; fields
 * that need arguments are left out; deprecated fields are skipped. Returns `''` for leaf types.
 */
export function buildSelection(
  schema: GraphQLSchema,
  type: GraphQLNamedType,
  budget: SelectionBudget,
): string {
  return buildBoundedSelection(schema, type, budget).selection;
}

/** `buildSelection`, also saying which fields the byte cap (`budget.maxBytes`) left out. */
export function buildBoundedSelection(
  schema: GraphQLSchema,
  type: GraphQLNamedType,
  budget: SelectionBudget,
): BoundedSelection {
  const room = newRoom(budget);
  if (isLeafType(type)) return { selection: '', dropped: [] };
  // A root connection (e.g. `search`) reads its page: counts, page info, nodes at full depth.
  const shape = connectionShape(type);
  const selection = shape
    ? connectionBody(schema, type, shape, budget.depth + 1, budget, room)
    : selectionFor(schema, type, budget.depth, budget, room);
  return { selection, dropped: room.dropped };
}

/**
 * `taken` (response name → printed type) is shared by the members of a union: two members may
 * not select the same name with different types (graphql-js: fields "conflict").
 */
function selectionFor(
  schema: GraphQLSchema,
  type: GraphQLNamedType,
  depth: number,
  budget: SelectionBudget,
  room: Room,
  taken?: Map<string, string>,
): string {
  if (isUnionType(type)) return unionSelection(schema, type.getTypes(), depth, budget, room);
  if (!isObjectType(type) && !isInterfaceType(type)) return '';
  if (room.work <= 0) return '';
  const known = eligibleFields(type);
  // A union member's fields are matched against its siblings' one by one: charged as looked at.
  room.work -= taken ? 1 + known.fields.length : 1;
  const fits = (field: AnyField) => (taken?.get(field.name) ?? String(field.type)) === String(field.type);
  const fields = taken ? known.fields.filter(fits) : known.fields;
  const leaves = taken ? known.leaves.filter(fits) : known.leaves;
  const parts: string[] = [];
  // A nested selection already paid for its inner fields while it was built; the rest is charged here.
  const choose = (field: AnyField, text: string, prepaid = 0) => {
    const cost = text.length + 1 - prepaid;
    if (cost > room.left) {
      room.dropped.push(`${type.name}.${field.name}`);
      return;
    }
    room.left -= cost;
    parts.push(text);
    taken?.set(field.name, String(field.type));
  };
  // Scalars first, but a third of the budget is kept for nested objects while depth remains.
  const objects = depth > 0 ? fields.length - leaves.length : 0;
  const leafBudget = Math.max(1, budget.breadth - Math.min(objects, Math.floor(budget.breadth / 3)));
  for (const field of leaves.slice(0, leafBudget)) choose(field, field.name);
  if (depth > 0) {
    for (const field of fields) {
      if (parts.length >= budget.breadth) break;
      const named = getNamedType(field.type);
      if (isLeafType(named)) continue;
      if (room.work <= 0) break;
      room.work--;
      if (room.left <= field.name.length + 4) {
        room.dropped.push(`${type.name}.${field.name}`);
        continue;
      }
      const before = room.left;
      const connection = connectionShape(named);
      const sub = connection
        ? connectionSelection(schema, field, connection, depth, budget, room)
        : wrap(field.name, selectionFor(schema, named, depth - 1, budget, room));
      if (sub) choose(field, sub, before - room.left);
      else room.left = before;
    }
  }
  if (isAbstractType(type)) parts.push('__typename');
  if (parts.length === 0) return '';
  return `{ ${parts.join(' ')} }`;
}

// The fields a generated selection may take of a type (not deprecated, no required arguments),
// and its scalars among them in the order they are taken: found once per type, since builds look
// at the same types many times.
interface EligibleFields {
  fields: AnyField[];
  leaves: AnyField[];
}
const eligible = new WeakMap<GraphQLObjectType | GraphQLInterfaceType, EligibleFields>();

function eligibleFields(type: GraphQLObjectType | GraphQLInterfaceType): EligibleFields {
  let known = eligible.get(type);
  if (!known) {
    const fields = Object.values(type.getFields()).filter(
      (field) => !field.deprecationReason && !field.name.startsWith('__') && !needsArguments(field),
    );
    const leaves = fields.filter((field) => isLeafType(getNamedType(field.type)));
    leaves.sort((a, b) => rank(a) - rank(b));
    known = { fields, leaves };
    eligible.set(type, known);
  }
  return known;
}

function newRoom(budget: SelectionBudget): Room {
  return { left: budget.maxBytes ?? MAX_SELECTION_BYTES, dropped: [], work: MAX_SELECTION_WORK };
}

/** Names that usually identify or summarise an object, read before other scalars. */
const TELLING = [
  'id',
  'name',
  'title',
  'login',
  'number',
  'state',
  'url',
  'description',
  'createdAt',
  'updatedAt',
];

// `id` first: it is what follow-up calls need; then the telling names, then non-null scalars.
function rank(field: AnyField): number {
  const telling = TELLING.indexOf(field.name);
  if (telling >= 0) return telling;
  return isNonNullType(field.type) ? TELLING.length : TELLING.length + 1;
}

function needsArguments(field: AnyField): boolean {
  return field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined);
}

function unionSelection(
  schema: GraphQLSchema,
  members: readonly GraphQLObjectType[],
  depth: number,
  budget: SelectionBudget,
  room: Room,
): string {
  const parts = ['__typename'];
  const taken = new Map<string, string>();
  for (const member of members.slice(0, budget.breadth)) {
    // Members are read one level shallower: a union of 20 types would otherwise dwarf the rest.
    const sub = selectionFor(schema, member, Math.max(0, depth - 1), budget, room, taken);
    if (sub) parts.push(`... on ${member.name} ${sub}`);
  }
  return `{ ${parts.join(' ')} }`;
}

function wrap(name: string, selection: string): string {
  return selection ? `${name} ${selection}` : '';
}

interface ConnectionShape {
  node: GraphQLNamedType;
  via: 'nodes' | 'edges';
  hasPageInfo: boolean;
  hasTotalCount: boolean;
}

/** A Relay-style connection: a `…Connection` object with `nodes` or `edges { node }`. */
export function connectionShape(type: GraphQLNamedType): ConnectionShape | undefined {
  if (!isObjectType(type) || !type.name.endsWith('Connection')) return undefined;
  const fields = type.getFields();
  const hasPageInfo = isObjectType(fields.pageInfo ? getNamedType(fields.pageInfo.type) : undefined);
  const hasTotalCount = fields.totalCount !== undefined && isLeafType(getNamedType(fields.totalCount.type));
  if (fields.nodes)
    return { node: getNamedType(fields.nodes.type), via: 'nodes', hasPageInfo, hasTotalCount };
  const edge = fields.edges ? getNamedType(fields.edges.type) : undefined;
  const node = isObjectType(edge) ? edge.getFields().node : undefined;
  if (node) return { node: getNamedType(node.type), via: 'edges', hasPageInfo, hasTotalCount };
  return undefined;
}

/** `pageInfo { … }` for a connection type, with the fields the type has. */
function pageInfoSelection(type: GraphQLNamedType): string {
  if (!isObjectType(type)) return '';
  const pageInfo = type.getFields().pageInfo;
  const info = pageInfo ? getNamedType(pageInfo.type) : undefined;
  if (!isObjectType(info)) return '';
  const wanted = ['hasNextPage', 'endCursor'].filter((name) => info.getFields()[name]);
  return wanted.length > 0 ? `pageInfo { ${wanted.join(' ')} }` : '';
}

/** The body of a connection selection: counts, page info and the nodes (at `depth` - 1). */
function connectionBody(
  schema: GraphQLSchema,
  type: GraphQLNamedType,
  shape: ConnectionShape,
  depth: number,
  budget: SelectionBudget,
  room: Room = newRoom(budget),
): string {
  const nodes = selectionFor(schema, shape.node, depth - 1, budget, room);
  const parts: string[] = [];
  if (shape.hasTotalCount) parts.push('totalCount');
  const info = pageInfoSelection(type);
  if (info) parts.push(info);
  if (isLeafType(shape.node)) parts.push(shape.via === 'nodes' ? 'nodes' : 'edges { node }');
  else if (nodes) parts.push(shape.via === 'nodes' ? `nodes ${nodes}` : `edges { node ${nodes} }`);
  return parts.length > 0 ? `{ ${parts.join(' ')} }` : '';
}

function connectionSelection(
  schema: GraphQLSchema,
  field: AnyField,
  shape: ConnectionShape,
  depth: number,
  budget: SelectionBudget,
  room: Room,
): string {
  const body = connectionBody(schema, getNamedType(field.type), shape, depth, budget, room);
  if (!body) return '';
  // GitHub and others refuse a connection read without `first` or `last`.
  const first = field.args.some((arg) => arg.name === 'first') ? `(first: ${budget.pageSize ?? 10})` : '';
  return `${field.name}${first} ${body}`;
}
