/**
 * The wire form of an event: exactly what `JSON.parse(JSON.stringify(value))` would give back,
 * so a host can send every event over JSON unchanged. Keys whose value is `undefined` (or a
 * function or symbol) are absent, non-finite numbers are `null`, and anything that is not a plain
 * object or array (a `Date`, a `Map`, a class instance) becomes its JSON form; `-0` is `0`.
 *
 * Copy-on-write: a value that already is wire data is returned as is, so the common case costs
 * one walk and no allocation.
 */

/** `value` as plain JSON data; the same reference when it already is. */
export function toWireData<T>(value: T): T {
  const cleaned = clean(value, 0);
  return (cleaned === UNCHANGED ? value : cleaned) as T;
}

/** Marks "this value is already wire data". */
const UNCHANGED: unique symbol = Symbol("unchanged");
/** Marks "drop this key" (what JSON.stringify does with undefined, functions and symbols). */
const OMIT: unique symbol = Symbol("omit");

type Cleaned = unknown | typeof UNCHANGED | typeof OMIT;

/** Deeper than this is no event payload but a cycle (which JSON cannot write): it becomes `null`. */
const MAX_DEPTH = 128;

function clean(value: unknown, depth: number): Cleaned {
  switch (typeof value) {
    case "string":
    case "boolean":
      return UNCHANGED;
    case "number":
      // JSON writes -0 as 0.
      if (value === 0) return Object.is(value, -0) ? 0 : UNCHANGED;
      return Number.isFinite(value) ? UNCHANGED : null;
    case "undefined":
    case "function":
    case "symbol":
      return OMIT;
    case "bigint":
      return value.toString();
    default: {
      if (value === null) return UNCHANGED;
      if (depth >= MAX_DEPTH) return null;
      if (Array.isArray(value)) return cleanArray(value, depth + 1);
      if (isPlainObject(value as object)) return cleanObject(value as Record<string, unknown>, depth + 1);
      // A Date, Map, class instance ...: whatever JSON makes of it.
      return viaJson(value as object);
    }
  }
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

function cleanArray(array: unknown[], depth: number): Cleaned {
  let out: unknown[] | undefined;
  for (let i = 0; i < array.length; i++) {
    const item = clean(array[i], depth);
    if (item === UNCHANGED) {
      if (out) out.push(array[i]);
      continue;
    }
    out ??= array.slice(0, i);
    // In an array JSON writes null where an object would drop the key.
    out.push(item === OMIT ? null : item);
  }
  return out ?? UNCHANGED;
}

function cleanObject(object: Record<string, unknown>, depth: number): Cleaned {
  let out: Record<string, unknown> | undefined;
  const keys = Object.keys(object);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = clean(object[key], depth);
    if (item === UNCHANGED) {
      if (out) define(out, key, object[key]);
      continue;
    }
    if (!out) {
      out = {};
      for (let j = 0; j < i; j++) define(out, keys[j]!, object[keys[j]!]);
    }
    if (item !== OMIT) define(out, key, item);
  }
  return out ?? UNCHANGED;
}

/** defineProperty, not assignment: a JSON key named "__proto__" must stay a plain field. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function viaJson(value: object): unknown {
  try {
    const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
    return text === undefined ? OMIT : (JSON.parse(text) as unknown);
  } catch {
    // A cycle, or a toJSON that throws: not data a host can receive.
    return null;
  }
}

/**
 * A deep copy of wire data (what {@link toWireData} returns): plain objects, arrays and JSON
 * primitives. Much cheaper than `structuredClone` for the small objects events are.
 */
export function copyWireData<T>(value: T): T {
  return copy(value, 0) as T;
}

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  // Wire data is never this deep (toWireData cuts it at MAX_DEPTH): not wire data, copied as such.
  if (depth >= MAX_DEPTH) return structuredClone(value);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], depth + 1);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) define(out, key, copy((value as Record<string, unknown>)[key], depth + 1));
  return out;
}
