/**
 * A lenient lens over generated wire types (the Codex protocol, the ACP SDK schema, or a
 * third-party driver's own): a frame is read through the type the protocol gives it, so a
 * misspelt or removed field fails to compile, while nothing about the values is trusted — a
 * missing or mistyped field reads as `undefined` and a malformed frame still becomes a notice,
 * never a crash.
 *
 * `Lenient<T>` has exactly `T`'s field names, each optional. A field's value is `Unchecked`: it
 * must go through a reader (`str`, `num`, `bool`, `open`, `list`, `entries`) before use, and the
 * reader knows the type the protocol claims for it. A field typed as string literals (a `type`
 * discriminant, a status) keeps its literals so a `switch` narrows the variant; such a field may
 * hold anything at run time, so it is only compared, never used as a string.
 *
 * A union reads as the union of its variants, so a variant's fields are readable once its tag is
 * checked. To read fields before (or without) checking a tag, open the value as `AnyVariant<T>`
 * (`openAnyVariant`): one object with every variant's fields.
 */
import { isObject } from "./json.js";

export { bool, isObject, num, str } from "./json.js";

declare const claimed: unique symbol;

/** A value the wire sent where the protocol promises a `T`; nothing about it is checked yet. */
export interface Unchecked<T> {
  readonly [claimed]?: T;
}

/** `"a" | "b" | null` → true; `string`, numbers, objects → false. */
type IsLiteralUnion<V> = [NonNullable<V>] extends [never] ? false : [NonNullable<V>] extends [string] ? (string extends NonNullable<V> ? false : true) : false;

type Field<V> = IsLiteralUnion<V> extends true ? V | undefined : Unchecked<V>;

/** A frame the protocol types as `T` (a union reads as the union of its variants), as it may arrive. */
export type Lenient<T> = T extends readonly unknown[] ? never : T extends object ? { readonly [K in keyof T]?: Field<T[K]> } : never;

/** Every key of every variant of a union. */
export type KeysOf<T> = T extends unknown ? keyof T : never;

/** The type of field `K` across the variants of `T` that have it. */
type FieldOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/** The variants of a (tagged) union as one object type: every variant's fields, each optional. */
export type AnyVariant<T> = { [K in KeysOf<T>]?: FieldOf<T, K> };

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

/** Like {@link open}, but an empty object when the field is missing or not an object (every field then reads as absent). */
export function openOrEmpty<T>(field: Unchecked<T> | undefined): Lenient<NonNullable<T>> {
  return open(field) ?? ({} as Lenient<NonNullable<T>>);
}

/** A field that should hold an object of a union type, with every variant's fields readable before its tag is checked. */
export function openAnyVariant<T>(field: Unchecked<T> | undefined): Lenient<AnyVariant<NonNullable<T>>> | undefined {
  return isObject(field) ? (field as Lenient<AnyVariant<NonNullable<T>>>) : undefined;
}

type ElementOf<T> = T extends readonly (infer E)[] ? E : never;

/** A field that should hold a list: its elements, each still unchecked; `[]` unless it is an array. */
export function list<T>(field: Unchecked<T> | undefined): Unchecked<ElementOf<NonNullable<T>>>[] {
  return Array.isArray(field) ? (field as Unchecked<ElementOf<NonNullable<T>>>[]) : [];
}

/** A field that should hold a list of objects: the elements that are objects, opened; `[]` unless it is an array. */
export function openEach<T>(field: Unchecked<T> | undefined): Lenient<NonNullable<ElementOf<NonNullable<T>>>>[] {
  return list(field).flatMap((element) => open(element) ?? []);
}

type ValueOf<T> = T extends readonly unknown[] ? never : T extends object ? NonNullable<T[keyof T]> : never;

/** A field that should hold a map (`{ [key]: V }`): its entries, values unchecked; `[]` unless it is an object. */
export function entries<T>(field: Unchecked<T> | undefined): [string, Unchecked<ValueOf<NonNullable<T>>>][] {
  return isObject(field) ? (Object.entries(field) as [string, Unchecked<ValueOf<NonNullable<T>>>][]) : [];
}
