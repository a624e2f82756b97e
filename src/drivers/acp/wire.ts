/**
 * A lenient lens over ACP payloads typed by the SDK's generated schema
 * (`@agentclientprotocol/sdk`). Frames may be malformed, so every field reads as `unknown` and is
 * checked where it is used (a field of the wrong type is ignored, never guessed); but only the
 * schema's field names can be read, so a misspelt field fails to compile.
 *
 * `Wire<T>` carries `T` as a phantom so that {@link at}, {@link within} and {@link each} type the
 * nested object from the schema too: `within(within(init, "agentCapabilities"), "promptCapabilities")`.
 */
import { isObject } from "../../driver/json.js";

/** Every key of every member of a union (a tagged union's fields are all readable before the tag is checked). */
export type KeysOf<T> = T extends unknown ? keyof T : never;

/** The schema type of field `K` across the union members that have it, without `null`/`undefined`. */
export type FieldOf<T, K extends PropertyKey> = NonNullable<T extends unknown ? (K extends keyof T ? T[K] : never) : never>;

/** The element type of an array field. */
type ElementOf<T, K extends PropertyKey> = FieldOf<T, K> extends ReadonlyArray<infer E> ? E : never;

declare const schema: unique symbol;

/** A payload that is an object and may follow schema type `T`: each of `T`'s fields may be missing or of any type. */
export type Wire<T> = { readonly [K in KeysOf<T>]?: unknown } & { readonly [schema]?: T };

/** The value as a lens when it is an object (arrays and primitives are not). */
export function wire<T>(value: unknown): Wire<T> | undefined {
  return isObject(value) ? (value as Wire<T>) : undefined;
}

/** The object at `key`, typed by the schema, or `undefined` when it is missing or not an object. */
export function at<T, K extends KeysOf<T>>(parent: Wire<T>, key: K): Wire<FieldOf<T, K>> | undefined {
  return wire((parent as Record<PropertyKey, unknown>)[key]);
}

/** The object at `key`, or an empty one when it is missing or not an object (every flag then reads as absent). */
export function within<T, K extends KeysOf<T>>(parent: Wire<T>, key: K): Wire<FieldOf<T, K>> {
  return at(parent, key) ?? {};
}

/** The objects of the array at `key` (a missing array is empty; entries that are not objects are skipped). */
export function each<T, K extends KeysOf<T>>(parent: Wire<T>, key: K): Wire<ElementOf<T, K>>[] {
  const value = (parent as Record<PropertyKey, unknown>)[key];
  return Array.isArray(value) ? value.filter(isObject).map((entry) => entry as Wire<ElementOf<T, K>>) : [];
}
