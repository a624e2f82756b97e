/** Types of api-report-lib.mjs. */
export interface ReportEntry {
  /** The package entry point, e.g. `agent-adaptor/testing`. */
  readonly entry: string;
  /** The api-extractor config file for it, relative to the package root. */
  readonly config: string;
  /** The report file name under etc/. */
  readonly report: string;
}

export declare const REPORTS: readonly ReportEntry[];
export declare const FORBIDDEN_NAMES: readonly string[];
export declare const CALL_OPTION_TYPES: readonly string[];
export declare const API_CHANGED_MESSAGE: string;

export interface ReportComparison {
  changed: boolean;
  /** The first differing lines: `-` committed, `+` generated. */
  diff: string[];
}

export interface ReportFolderComparison extends ReportComparison {
  report: string;
}

export interface ForbiddenFinding {
  /** The forbidden name, or `CallOptions.timeout` / `CallDefaults.timeout`. */
  name: string;
  /** 1-based line in the report. */
  line: number;
  text: string;
}

export declare function reportsEquivalent(expected: string, actual: string): boolean;
export declare function compareReports(expected: string, actual: string, maxLines?: number): ReportComparison;
export declare function compareReportFolders(expectedDir: string, actualDir: string, reports?: readonly string[]): ReportFolderComparison[];
export declare function findForbiddenNames(reportText: string): ForbiddenFinding[];
