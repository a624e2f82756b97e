/** Types of tool-fields.mjs. */
export interface ToolFieldRow {
  /** The key recorded in a fixture, e.g. `started.command`. */
  readonly field: string;
  /** How the docs table names it. */
  readonly label: string;
}

/** One driver's recorded observations: field keys per tool kind. */
export interface ToolFieldsFixture {
  driver: string;
  kinds: Record<string, string[]>;
}

export declare const BEGIN: string;
export declare const END: string;
export declare const TOOL_KINDS: readonly string[];
export declare const TOOL_FIELDS: readonly ToolFieldRow[];
export declare function loadFixtures(dir?: string): ToolFieldsFixture[];
export declare function renderSection(fixtures?: ToolFieldsFixture[]): string;
export declare function replaceSection(page: string, section: string): string;
