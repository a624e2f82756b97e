/**
 * The driver kit (`agent-adaptor/driver-kit`): the pieces every process-backed driver needs,
 * written once: owned processes and their stats, a claimable standby, inspect-then-keep the
 * connection, lenient JSON accessors and a lens over generated wire types, evidence records,
 * the ordered emit chain, stderr excerpts and an abort-aware delay. The built-in Codex, ACP, Pi
 * and stream-json drivers stand on it; see docs/driver-kit.md.
 *
 * @packageDocumentation
 */

/** The shared lifecycle of a process-backed driver: owned processes, inspect, prepare, stats, close. */
export { ProcessBackedDriver } from "./driver-base.js";
/** Processes a driver owns: live set, start count, the "driver closed" rule. */
export { OwnedProcesses } from "./processes.js";
/** Processes a driver owns: the stats type, the connection contract, the start callback. */
export type { OwnedConnection, ProcessStats, StartConnection } from "./processes.js";
/** A standby over one connection, claimable once by the driver that made it. */
export { ClaimableStandby } from "./standby.js";
/** The process side of a connection: launch settings and the shared lifecycle. */
export { ProcessConnection, spawnLaunch } from "./connection.js";
/** How a driver launches its CLI. */
export type { ProcessLaunch } from "./connection.js";
/** Inspection over a started connection, and `prepare()` keeping it as a standby. */
export { ConnectionInspector, inspectOverConnection, keepAsStandby } from "./inspect.js";
/** What one driver's inspection over a connection needs, and what it yields. */
export type { ConnectionInspection, InspectionOutcome, InspectorSetup } from "./inspect.js";
/** Evidence records with one clock and one rounding, and the recorder of one inspection's calls. */
export { evidence, evidenceClock, EvidenceRecorder } from "./evidence.js";
/** What one evidence record says, how a call was timed, and a measured call's outcome. */
export type { EvidenceInput, EvidenceTiming, Measured } from "./evidence.js";
/** The ordered emit chain of one run. */
export { OrderedEmitter } from "./emit-chain.js";
/** A wait that ends with the abort reason when the signal aborts. */
export { abortableDelay } from "./delay.js";
/** The configured environment's values, and a redactor over them. */
export { definedOnly, driverRedactor, traceEnv } from "./env.js";
/** Lenient accessors for untyped provider payloads, error text and stderr excerpts. */
export { arr, bool, errorText, isObject, num, stderrExcerpt, str } from "../json.js";
/** An untyped provider payload (a JSON object). */
export type { Json } from "../json.js";
/** A lenient lens over a provider's generated wire types: schema field names checked at compile time, values never trusted. */
export { claim, entries, list, open, openAnyVariant, openEach, openOrEmpty, readFrame } from "../lens.js";
/** The lens's types: a frame as it may arrive, a value not checked yet, a union's variants as one object. */
export type { AnyVariant, KeysOf, Lenient, Unchecked } from "../lens.js";
/** Builders for inspection observations. */
export { allUnavailable, observed, unavailable, unsupported } from "../observations.js";
/** The process and redaction types the kit's signatures name (the SPI types are exported by the root entry). */
export type { ProcessExit, ProcessHandle } from "../../process/spawn.js";
export type { Redactor } from "../../redact/redact.js";
/** Bounded unified diffs of one file, for `file_change` tool events. */
export { capDiff, DEFAULT_DIFF_MAX_BYTES, diffHeaders, fileChange, unifiedFileDiff } from "./diff.js";
export type { DiffLimits } from "./diff.js";
/** What a driver's `compatibility()` keeps: child variables and arguments without credentials, endpoints and locations. */
export { compatibleArgs, compatibleEnv, isOperationalEnvName } from "./compatibility.js";
/** Skills written into a provider's skill location in a run-owned directory, and removed again. */
export { materializeSkills, removeSkills } from "./skills.js";
/** The skill format's rules (name, description, inline file paths) and `SKILL.md` as a provider receives it. */
export {
  hasFrontmatterDescription,
  SKILL_DESCRIPTION_MAX_LENGTH,
  SKILL_FILE,
  SKILL_NAME_MAX_LENGTH,
  SKILL_NAME_PATTERN,
  skillDescriptionProblem,
  skillFilePath,
  skillMarkdown,
  skillNameProblem,
} from "./skill-markdown.js";
