/**
 * Property tests over the recorded frames (fast-check, fixed seed, bounded runs): each mapper is
 * fed the frames of its recordings in arbitrary order, with duplicates, with unknown fields added,
 * truncated (a frame cut anywhere, every field after the cut missing) and mixed with frame types no
 * provider sends. Whatever arrives, the mapper never throws, never emits a terminal event (the
 * run loop decides the one terminal), every event passes the event validator, and each unknown
 * frame type that arrives while the turn is open becomes a notice.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AcpPresetTraits } from "../../src/drivers/acp/config.js";
import { framesOf, isObject, replayAcp, replayCodex, replayPi, replayStreamJson, scenariosOf, terminals, type Json, type Replay } from "./replay.js";

const SEED = 0x5eed_f7a3;
const NUM_RUNS = 150;
/** Frames per generated sequence. */
const MAX_FRAMES = 50;
/** Names of frame types no provider sends start with this. */
const UNKNOWN = "zz_unknown_";

interface Target {
  readonly target: string;
  readonly replay: (frames: unknown[]) => Promise<Replay>;
  /** A frame of a type this protocol does not know. */
  readonly unknownFrame: (name: string, payload: unknown) => Json;
  /** Whether a fed frame is one of those. */
  readonly isUnknown: (frame: unknown) => boolean;
}

const rpcUnknown = (frame: unknown) => isObject(frame) && typeof frame.method === "string" && frame.method.startsWith(UNKNOWN);
const typedUnknown = (frame: unknown) => isObject(frame) && typeof frame.type === "string" && frame.type.startsWith(UNKNOWN);
const acpTraits = (id: string): AcpPresetTraits => ({ id, name: id });

const TARGETS: Target[] = [
  { target: "codex", replay: replayCodex, unknownFrame: (name, params) => ({ method: `${UNKNOWN}${name}`, params }), isUnknown: rpcUnknown },
  ...(["claude", "codebuddy"] as const).map((dialect) => ({
    target: dialect,
    replay: (frames: unknown[]) => replayStreamJson(frames, dialect),
    unknownFrame: (name: string, payload: unknown) => ({ type: `${UNKNOWN}${name}`, payload }),
    isUnknown: typedUnknown,
  })),
  ...["acp-gemini", "acp-copilot", "acp-codex", "acp-claude"].map((target) => ({
    target,
    replay: (frames: unknown[]) => replayAcp(frames, acpTraits(target)),
    unknownFrame: (name: string, payload: unknown) => ({ method: "session/update", params: { sessionId: "s", update: { sessionUpdate: `${UNKNOWN}${name}`, payload } } }),
    isUnknown: (frame: unknown) => {
      const update = isObject(frame) && isObject(frame.params) && isObject(frame.params.update) ? frame.params.update : undefined;
      return typeof update?.sessionUpdate === "string" && update.sessionUpdate.startsWith(UNKNOWN);
    },
  })),
  { target: "pi", replay: replayPi, unknownFrame: (name, payload) => ({ type: `${UNKNOWN}${name}`, payload }), isUnknown: typedUnknown },
];

// --- mutations ----------------------------------------------------------------------------------

/** `value` with `key` added to every object down to depth 3 (params, update, message, item, …). */
function withField(value: unknown, key: string, extra: unknown, depth = 0): unknown {
  if (depth > 3) return value;
  if (Array.isArray(value)) return value.map((v) => withField(v, key, extra, depth + 1));
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) out[k] = withField(v, key, extra, depth + 1);
  out[key] = extra;
  return out;
}

/**
 * The frame's JSON cut at `fraction` of its length and closed again so that it parses: the frame as
 * if it had been cut there, every field after the cut missing. Undefined when no nearby cut parses.
 */
function truncated(frame: unknown, fraction: number): unknown {
  const text = JSON.stringify(frame);
  let end = Math.floor(text.length * fraction);
  for (let tries = 0; tries < 64 && end > 0; tries++, end--) {
    try {
      return JSON.parse(closeJson(text.slice(0, end)));
    } catch {
      // cut one character earlier
    }
  }
  return undefined;
}

/** Closes an open string and every open bracket of a JSON prefix. */
function closeJson(prefix: string): string {
  const open: string[] = [];
  let inString = false;
  let escaped = false;
  for (const ch of prefix) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") open.push("}");
    else if (ch === "[") open.push("]");
    else if (ch === "}" || ch === "]") open.pop();
  }
  return `${prefix}${inString ? (escaped ? '\\"' : '"') : ""}${open.reverse().join("")}`;
}

type Mutation =
  | { kind: "same" }
  | { kind: "field"; key: string; value: unknown }
  | { kind: "truncate"; at: number }
  | { kind: "unknown"; name: string; payload: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: "same" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("field" as const), key: fc.string({ maxLength: 8 }), value: fc.jsonValue({ maxDepth: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("truncate" as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("unknown" as const), name: fc.stringMatching(/^[a-z_]{1,12}$/), payload: fc.jsonValue({ maxDepth: 2 }) }) },
);

function apply(target: Target, frame: unknown, m: Mutation): unknown {
  switch (m.kind) {
    case "same":
      return frame;
    case "field":
      // A key the protocol does not use: `zz_` keeps it from replacing a real field.
      return withField(frame, `zz_${m.key}`, m.value);
    case "truncate":
      return truncated(frame, m.at);
    case "unknown":
      return target.unknownFrame(m.name, m.payload);
  }
}

// --- properties ---------------------------------------------------------------------------------

for (const t of TARGETS) {
  const pool = scenariosOf(t.target).flatMap((scenario) => framesOf(t.target, scenario));

  describe.skipIf(pool.length === 0)(`${t.target} mapper under arbitrary recorded frames`, () => {
    it("never throws, never emits a terminal, emits only valid events, and reports every unknown frame type", { timeout: 120_000 }, async () => {
      const sequences = fc.array(fc.tuple(fc.nat(pool.length - 1), mutation), { minLength: 1, maxLength: MAX_FRAMES });
      let unknownSeen = 0;
      await fc.assert(
        fc.asyncProperty(sequences, async (picks) => {
          const frames = picks.map(([index, m]) => apply(t, pool[index], m)).filter((f) => f !== undefined);
          // A throw (including the validator's, on a malformed event) fails the property.
          const { events, perFrame } = await t.replay(frames);
          expect(terminals(events)).toEqual([]);
          for (const fed of perFrame) {
            if (!fed.open || !t.isUnknown(fed.frame)) continue;
            unknownSeen++;
            expect(fed.events.filter((e) => e.type === "notice")).toHaveLength(1);
          }
        }),
        { seed: SEED, numRuns: NUM_RUNS, endOnFailure: true },
      );
      // The property did meet unknown frames while the turn was open.
      expect(unknownSeen).toBeGreaterThan(0);
    });

    it("maps each recording with every frame cut short without a throw or a terminal", async () => {
      for (const scenario of scenariosOf(t.target)) {
        const frames = framesOf(t.target, scenario);
        for (const fraction of [0.1, 0.5, 0.9]) {
          const { events } = await t.replay(frames.map((f) => truncated(f, fraction)).filter((f) => f !== undefined));
          expect(terminals(events)).toEqual([]);
        }
      }
    });
  });
}
