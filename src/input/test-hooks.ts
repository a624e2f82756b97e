/**
 * Test seam inside one file input's open → fstat → copy → re-check sequence, so tests can modify
 * or replace the file at an exact point instead of racing a concurrent process. Internal: not
 * exported from the package. An unset hook costs one property read (no await).
 */
export const materializeTestHooks: {
  /** After the source is opened, before its first `fstat`. */
  beforeStat?: (index: number | undefined) => void | Promise<void>;
  /** After the source is opened and its first `fstat` taken, before a byte is copied. */
  afterOpen?: (index: number) => void | Promise<void>;
  /** After the last byte is copied, before the re-check (second `fstat` and `lstat` of the path). */
  beforeVerify?: (index: number) => void | Promise<void>;
} = {};
