/**
 * A lenient lens over the generated Codex protocol types: a frame is read through the type the
 * protocol gives it, so a misspelt or removed field fails to compile, while nothing about the
 * values is trusted — a missing or mistyped field reads as `undefined` and a malformed frame
 * still becomes a notice, never a crash.
 *
 * `Lenient<T>` has exactly `T`'s field names, each optional. A field's value is `Unchecked`: it
 * must go through a reader (`str`, `num`, `bool`, `open`, `list`, `entries`) before use, and the
 * reader knows the type the protocol claims for it. A field typed as string literals (a `type`
 * discriminant, a status) keeps its literals so a `switch` narrows the variant; such a field may
 * hold anything at run time, so it is only compared, never used as a string.
 */

declare const claimed: unique symbol;

/** A value Codex sent where the protocol promises a `T`; nothing about it is checked yet. */
export interface Unchecked<T> {
  readonly [claimed]?: T;
}

/** `"a" | "b" | null` → true; `string`, numbers, objects → false. */
type IsLiteralUnion<V> = [NonNullable<V>] extends [never] ? false : [NonNullable<V>] extends [string] ? (string extends NonNullable<V> ? false : true) : false;

type Field<V> = IsLiteralUnion<V> extends true ? V | undefined : Unchecked<V>;

/** A frame the protocol types as `T` (a union reads as the union of its variants), as it may arrive. */
export type Lenient<T> = T extends readonly unknown[] ? never : T extends object ? { readonly [K in keyof T]?: Field<T[K]> } : never;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** A whole frame (notification params, a response) the protocol types as `T`; `undefined` unless it is an object. */
export function readFrame<T>(value: unknown): Lenient<T> | undefined {
  return isObject(value) ? (value as Lenient<T>) : undefined;
}

/** A value from outside any frame (a caller's `unknown`) that the protocol types as `T`; unchecked. */
export function claim<T>(value: unknown): Unchecked<T> {
  return value as Unchecked<T>;
}

/** A field that should hold an object of the claimed type; `undefined` unless it is one. */
export function open<T>(field: Unchecked<T> | undefined): Lenient<NonNullable<T>> | undefined {
  return isObject(field) ? (field as Lenient<NonNullable<T>>) : undefined;
}

type ElementOf<T> = T extends readonly (infer E)[] ? E : never;

/** A field that should hold a list: its elements, each still unchecked; `[]` unless it is an array. */
export function list<T>(field: Unchecked<T> | undefined): Unchecked<ElementOf<NonNullable<T>>>[] {
  return Array.isArray(field) ? (field as Unchecked<ElementOf<NonNullable<T>>>[]) : [];
}

type ValueOf<T> = T extends readonly unknown[] ? never : T extends object ? NonNullable<T[keyof T]> : never;

/** A field that should hold a map (`{ [key]: V }`): its entries, values unchecked; `[]` unless it is an object. */
export function entries<T>(field: Unchecked<T> | undefined): [string, Unchecked<ValueOf<NonNullable<T>>>][] {
  return isObject(field) ? (Object.entries(field) as [string, Unchecked<ValueOf<NonNullable<T>>>][]) : [];
}

/** The value if it is a string. */
export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
/** The value if it is a finite number. */
export const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
/** The value if it is a boolean. */
export const bool = (value: unknown): boolean | undefined => (typeof value === "boolean" ? value : undefined);
