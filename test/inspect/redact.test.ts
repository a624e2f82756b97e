import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { AdaptorError, ProtocolError } from "../../src/errors/index.js";
import { createRedactor, forgetSecret, isSecretEnvName, isSecretKey, REDACTED, redactText, redactValue, secretEnvValues, withPlaceholders } from "../../src/redact/redact.js";

// The process-wide redactor reads process.env on first use; test files run in separate processes.
process.env.REDACT_TEST_SERVICE_API_KEY = "env-held-secret-value";

describe("createRedactor: recognised secret shapes", () => {
  const r = createRedactor();

  it.each([
    ["sk-proj-abcdefghijklmnop1234"],
    ["sk-ant-api03-AbCdEfGhIjKlMnOpQrSt"],
    ["ghp_0123456789abcdefghijABCDEFGHIJ"],
    ["github_pat_11ABCDEFG0123456789_abcdefghijkl"],
    ["xoxb-123456789012-abcdefghijkl"],
    ["AIzaSyA1234567890abcdefghijklmnopqrstu"],
    ["AKIAIOSFODNN7EXAMPLE"],
    ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
  ])("removes %s", (secret) => {
    const out = r.redactText(`before ${secret} after`);
    expect(out).toBe(`before ${REDACTED} after`);
  });

  it("keeps the label of bearer tokens and authorization headers", () => {
    expect(r.redactText("Authorization: Bearer abc.def-123")).toBe(`Authorization: ${REDACTED}`);
    expect(r.redactText("send Bearer abc.def-123 now")).toBe(`send Bearer ${REDACTED} now`);
    expect(r.redactText('{"authorization":"opaque-credential"}')).toBe(`{"authorization":"${REDACTED}"}`);
  });

  it("removes values of secret-looking keys in key=value, key: value and JSON forms", () => {
    expect(r.redactText("OPENAI_API_KEY=abc123xyz other")).toBe(`OPENAI_API_KEY=${REDACTED} other`);
    expect(r.redactText("password: hunter22")).toBe(`password: ${REDACTED}`);
    expect(r.redactText('{"apiKey":"my key with spaces","model":"m"}')).toBe(`{"apiKey":"${REDACTED}","model":"m"}`);
    expect(r.redactText("--api-key abcdef123 --model x")).toBe(`--api-key ${REDACTED} --model x`);
    const nested = JSON.stringify({ payload: JSON.stringify({ client_secret: "s3cr3t-value" }) });
    expect(r.redactText(nested)).not.toContain("s3cr3t-value");
  });

  it("leaves usage counters and look-alike keys alone", () => {
    const text = '{"input_tokens":12,"output_tokens":3,"apiKeySource":"none","apiKeyEnv":"OPENAI_API_KEY","password_required":true}';
    expect(r.redactText(text)).toBe(text);
    expect(r.redactText("the task-runner uses risk-assessment")).toBe("the task-runner uses risk-assessment");
  });

  it("removes PEM private keys", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAKC\n-----END RSA PRIVATE KEY-----";
    expect(r.redactText(`key:\n${pem}\ndone`)).toBe(`key:\n${REDACTED}\ndone`);
  });
});

describe("createRedactor: registered and environment secrets", () => {
  it("removes registered secrets, longest first", () => {
    const r = createRedactor({ secrets: ["hunter", "hunter2-extended"] });
    expect(r.redactText("a hunter2-extended b hunter c")).toBe(`a ${REDACTED} b ${REDACTED} c`);
    r.addSecret("plainvalue");
    expect(r.redactText("x plainvalue y")).toBe(`x ${REDACTED} y`);
  });

  it("finds a literal escaped by any depth of JSON stringification", () => {
    const secret = 'pa"ss\\wo\nrd';
    const r = createRedactor({ secrets: [secret] });
    let text: string = secret;
    for (let depth = 0; depth < 6; depth++) {
      const out = r.redactText(text);
      for (const form of escapedForms(secret, 6)) expect(out).not.toContain(form);
      expect(out).toContain(REDACTED);
      text = JSON.stringify({ nested: text });
    }
  });

  it("escapes regular-expression characters in literals", () => {
    const r = createRedactor({ secrets: ["a.b*c(d)[e]"] });
    expect(r.redactText("axbbc a.b*c(d)[e]")).toBe(`axbbc ${REDACTED}`);
  });

  it("ignores secrets too short to mean anything or hidden in the placeholder", () => {
    const r = createRedactor({ secrets: ["ab", "REDACT"] });
    expect(r.redactText("ab REDACT")).toBe("ab REDACT");
  });

  it("takes values of secret-looking environment variables of length >= 6", () => {
    const r = createRedactor({
      env: { MY_SERVICE_TOKEN: "tok-value-1", DB_PASSWORD: "pw-value-2", SHORT_KEY: "abc", HOME: "/home/someone", AWS_CREDENTIALS_FILE: "credfile-3" },
    });
    const out = r.redactText("tok-value-1 pw-value-2 abc /home/someone credfile-3");
    expect(out).toBe(`${REDACTED} ${REDACTED} abc /home/someone ${REDACTED}`);
  });

  it("classifies environment names", () => {
    for (const name of ["OPENAI_API_KEY", "GITHUB_TOKEN", "CLIENT_SECRET", "PGPASSWORD", "GOOGLE_APPLICATION_CREDENTIALS", "SSH_KEY"]) {
      expect(isSecretEnvName(name), name).toBe(true);
    }
    for (const name of ["PATH", "HOME", "LANG", "KEYBOARD", "TOKENIZERS_PARALLELISM", "TERM"]) {
      expect(isSecretEnvName(name), name).toBe(false);
    }
  });

  it("treats authorization variables as secret (PROXY_AUTHORIZATION, GATEWAY_AUTH) but not AUTH_MODE-like settings", () => {
    for (const name of ["PROXY_AUTHORIZATION", "GATEWAY_AUTH", "HTTP_AUTHORIZATION_HEADER"]) expect(isSecretEnvName(name), name).toBe(true);
    for (const name of ["AUTH_MODE", "CODEX_AUTH_METHOD", "OAUTH_CLIENT_ID"]) expect(isSecretEnvName(name), name).toBe(false);
  });

  it("a driver's secret env values: secret-looking names and the provider key variable under any name", () => {
    const key = "host-key-value-42";
    process.env.AA_TEST_PROVIDER_VAR = key;
    try {
      const values = secretEnvValues({ SERVICE_TOKEN: "token-value-1", MODE: "verbose-mode", SHORT_TOKEN: "abc", LLM: "llm-key-value" }, ["LLM", "AA_TEST_PROVIDER_VAR", undefined]);
      expect(values.sort()).toEqual([key, "llm-key-value", "token-value-1"].sort());
    } finally {
      delete process.env.AA_TEST_PROVIDER_VAR;
    }
  });

  it("the default redactText and redactValue use process.env", () => {
    expect(redactText("value: env-held-secret-value.")).toBe(`value: ${REDACTED}.`);
    expect(redactValue({ note: "env-held-secret-value" })).toEqual({ note: REDACTED });
    expect(redactText("Bearer abcdefgh")).toBe(`Bearer ${REDACTED}`);
  });
});

describe("redactValue", () => {
  it("deep-copies, redacts strings and masks values under secret-looking keys", () => {
    const r = createRedactor({ secrets: ["registered-secret"] });
    const input = {
      model: "m",
      apiKey: "whatever",
      nested: { headers: { Authorization: "Basic Zm9vOmJhcg==", accept: "json" }, list: ["x registered-secret y", 3] },
      usage: { input_tokens: 5 },
      auth: { accessToken: { value: "t" }, refresh_token: null, hasApiKey: true },
    };
    const out = r.redactValue(input);
    expect(out).toEqual({
      model: "m",
      apiKey: REDACTED,
      nested: { headers: { Authorization: REDACTED, accept: "json" }, list: [`x ${REDACTED} y`, 3] },
      usage: { input_tokens: 5 },
      auth: { accessToken: REDACTED, refresh_token: null, hasApiKey: true },
    });
    expect(out).not.toBe(input);
    expect(out.nested).not.toBe(input.nested);
    expect(input.apiKey).toBe("whatever");
  });

  it("keeps cycles, maps, sets, dates and error identity", () => {
    const r = createRedactor({ secrets: ["cyclic-secret"] });
    const a: Record<string, unknown> = { s: "cyclic-secret" };
    a.self = a;
    const copy = r.redactValue(a);
    expect(copy.self).toBe(copy);
    expect(copy.s).toBe(REDACTED);

    const m = r.redactValue(new Map([["token", "x"], ["k", "cyclic-secret"]]));
    expect([...m.entries()]).toEqual([["token", REDACTED], ["k", REDACTED]]);
    expect([...r.redactValue(new Set(["cyclic-secret"]))]).toEqual([REDACTED]);
    const d = new Date(5);
    expect(r.redactValue(d).getTime()).toBe(5);

    const err = new ProtocolError("failed with cyclic-secret", "invalid_json");
    const e2 = r.redactValue(err);
    expect(e2).toBeInstanceOf(ProtocolError);
    expect(AdaptorError.is(e2)).toBe(true);
    expect(e2.code).toBe("invalid_json");
    expect(e2.message).toBe(`failed with ${REDACTED}`);
  });

  it("does not let a __proto__ key change the prototype", () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const out = createRedactor().redactValue(parsed);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out, "__proto__")).toBe(true);
  });

  it("keeps a null prototype and enumerable symbol keys, redacting a secret written in a key", () => {
    const r = createRedactor({ secrets: ["key-secret"] });
    const tag = Symbol("tag");
    const input = Object.assign(Object.create(null) as Record<string | symbol, unknown>, { "x-key-secret": 1, plain: "key-secret" });
    input[tag] = "key-secret";
    Object.defineProperty(input, "hidden", { value: "key-secret", enumerable: false });
    const out = r.redactValue(input);
    expect(Object.getPrototypeOf(out)).toBeNull();
    expect(Reflect.ownKeys(out)).toEqual([`x-${REDACTED}`, "plain", tag]);
    expect(out.plain).toBe(REDACTED);
    expect(out[tag]).toBe(REDACTED);
  });

  it("a short string redacted before a secret was registered is redacted with the secret after it", () => {
    // Event keys and tags repeat in every value: their redaction is remembered until the secrets change.
    const r = createRedactor();
    const event = { type: "usage.observed", provider: "openai-acct-7731", nested: { "openai-acct-7731": "openai-acct-7731" } };
    expect(r.redactValue(event)).toEqual(event);
    r.addSecret("acct-7731");
    expect(r.redactValue(event)).toEqual({ type: "usage.observed", provider: `openai-${REDACTED}`, nested: { [`openai-${REDACTED}`]: `openai-${REDACTED}` } });
    forgetSecret(r, "acct-7731");
    expect(r.redactValue(event)).toEqual(event);
  });

  it("a run's placeholders apply to short strings, and secrets registered later through it apply to them too", () => {
    const base = createRedactor();
    const run = withPlaceholders(base, new Map([["/tmp/in/a.txt", "<input:a>"]]));
    expect(base.redactValue({ path: "/tmp/in/a.txt", note: "code-4471" })).toEqual({ path: "/tmp/in/a.txt", note: "code-4471" });
    run.addSecret("code-4471");
    expect(run.redactValue({ path: "/tmp/in/a.txt", note: "code-4471", "/tmp/in/a.txt": 1 })).toEqual({ path: "<input:a>", note: REDACTED, "<input:a>": 1 });
  });

  it("classifies object keys", () => {
    for (const key of ["apiKey", "api_key", "OPENAI_API_KEY", "token", "accessToken", "authorization", "password", "client_secret", "cookie", "credentials"]) {
      expect(isSecretKey(key), key).toBe(true);
    }
    for (const key of ["input_tokens", "maxTokens", "apiKeySource", "apiKeyEnv", "auth", "tokenizer", "secretsCount"]) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });
});

/** The secret and its JSON-escaped forms, as nested stringification produces them. */
function escapedForms(secret: string, depth: number): string[] {
  const forms = [secret];
  for (let i = 0; i < depth; i++) forms.push(JSON.stringify(forms.at(-1)).slice(1, -1));
  return forms;
}

describe("property: a registered secret never survives", () => {
  // Secrets of any characters (quotes, backslashes, control characters, non-ASCII) as long as
  // they are long enough to be registered and not part of the placeholder itself.
  const secretArb = fc
    .string({ minLength: 4, maxLength: 24, unit: fc.oneof(fc.constantFrom("a", "Z", "9", '"', "\\", "\n", "é", "[", "]", "-", "_", "="), fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c))) })
    .filter((s) => !REDACTED.includes(s));
  const fillerArb = fc.string({ maxLength: 12 });

  it("in text with the secret embedded anywhere", () => {
    fc.assert(
      fc.property(secretArb, fc.array(fillerArb, { minLength: 1, maxLength: 5 }), (secret, fillers) => {
        const r = createRedactor({ secrets: [secret] });
        const text = fillers.join(secret);
        expect(r.redactText(text + secret)).not.toContain(secret);
      }),
      { numRuns: 500 },
    );
  });

  it("inside JSON-stringified nested values, with redactText and with redactValue", () => {
    const valueArb = (secret: string) =>
      fc.letrec((tie) => ({
        node: fc.oneof(
          { depthSize: "small", withCrossShrink: true },
          fc.constant(secret),
          fillerArb.map((f) => `${f}${secret}${f}`),
          fc.integer(),
          fc.array(tie("node"), { maxLength: 3 }),
          fc.dictionary(fc.string({ maxLength: 6 }), tie("node"), { maxKeys: 3 }),
          tie("node").map((v) => JSON.stringify(v) ?? ""),
        ),
      })).node;

    fc.assert(
      fc.property(
        secretArb.chain((secret) => fc.tuple(fc.constant(secret), valueArb(secret))),
        ([secret, value]) => {
          const r = createRedactor();
          r.addSecret(secret);
          const viaText = r.redactText(JSON.stringify({ wrapped: value }));
          const viaValue = JSON.stringify(r.redactValue({ wrapped: value }));
          for (const form of escapedForms(secret, 4)) {
            expect(viaText).not.toContain(form);
            expect(viaValue).not.toContain(form);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
