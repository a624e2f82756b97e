/** Types of resources-table.mjs. */
import type { Driver, ResourceSupport } from "../src/index.js";

/** One built-in driver of the table. */
export interface BuiltInDriver {
  readonly label: string;
  /** The driver's entry module, relative to the repository root. */
  readonly module: string;
  make(module: Record<string, (...args: never[]) => Driver>): Driver;
}

/** One row: a driver's label and what its descriptor declares (absent: nothing). */
export interface ResourcesRow {
  label: string;
  resources: ResourceSupport | undefined;
}

export declare const BEGIN: string;
export declare const END: string;
export declare const BUILT_IN_DRIVERS: readonly BuiltInDriver[];
export declare function renderSection(rows: readonly ResourcesRow[]): string;
export declare function replaceSection(page: string, section: string): string;
export declare function loadRows(): Promise<ResourcesRow[]>;
