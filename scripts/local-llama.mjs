#!/usr/bin/env node
/**
 * Sets up a real local inference server for the openai() driver from the npm registry alone:
 * llama.cpp's `llama-server`, built from the llama.cpp source that the node-llama-cpp package
 * ships (llama/gitRelease.bundle), and a tiny llama model with random weights written here as
 * GGUF (no model download). The model's answers are gibberish; what it shows is the driver
 * against a real server: its requests (tool definitions included), streaming and usage.
 *
 *   node scripts/local-llama.mjs DIR [--jobs N]   # needs git, cmake, a C++17 compiler
 *   node scripts/local-llama.mjs DIR --model-only # only (re)writes DIR/tiny-llama.gguf
 *
 * Steps already done in DIR are skipped. At the end it prints the server command and how to run
 * the live test (test/drivers/openai/live-llama.test.ts).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

// The release whose bundle was built and run against the driver.
const NODE_LLAMA_CPP = "node-llama-cpp@3.21.1";
const TEMPLATE = "models/templates/Qwen-Qwen2.5-7B-Instruct.jinja";

const args = process.argv.slice(2);
const jobsAt = args.indexOf("--jobs");
const jobs = jobsAt >= 0 ? Number(args[jobsAt + 1]) : 2;
const dirArg = args.find((a, i) => !a.startsWith("--") && (jobsAt < 0 || i !== jobsAt + 1));
if (dirArg === undefined) {
  console.error("usage: node scripts/local-llama.mjs DIR [--jobs N] [--model-only]");
  process.exit(2);
}
const dir = resolve(dirArg);
mkdirSync(dir, { recursive: true });

const run = (cmd, argv, cwd = dir) => {
  console.error(`$ ${cmd} ${argv.join(" ")}`);
  execFileSync(cmd, argv, { cwd, stdio: ["ignore", "inherit", "inherit"] });
};

const src = join(dir, "llama.cpp");
const server = join(src, "build", "bin", "llama-server");
const model = join(dir, "tiny-llama.gguf");

if (!args.includes("--model-only")) {
  if (!existsSync(join(src, "CMakeLists.txt"))) {
    const bundle = join(dir, "package", "llama", "gitRelease.bundle");
    if (!existsSync(bundle)) {
      run("npm", ["pack", NODE_LLAMA_CPP, "--silent"]);
      const tgz = readdirSync(dir).find((f) => f.startsWith("node-llama-cpp-") && f.endsWith(".tgz"));
      if (tgz === undefined) throw new Error("npm pack left no node-llama-cpp tarball");
      run("tar", ["-xzf", tgz, "package/llama/gitRelease.bundle"]);
    }
    run("git", ["-c", "advice.detachedHead=false", "clone", "--quiet", bundle, src]);
  }
  if (!existsSync(server)) {
    // Static, CPU only, nothing fetched at build time (no prebuilt web UI, no HTTPS).
    run("cmake", ["-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF",
      "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_APP=OFF",
      "-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_OPENSSL=OFF"], src);
    run("cmake", ["--build", "build", "--target", "llama-server", "-j", String(jobs)], src);
  }
}

writeFileSync(model, tinyLlamaGguf());
console.error(`wrote ${model}`);
console.log(`
Serve:  ${server} -m ${model} --alias tiny-llama --jinja --chat-template-file ${join(src, TEMPLATE)} --host 127.0.0.1 --port 8080 -c 32768 -n 64
Driver: openai({ baseURL: "http://127.0.0.1:8080/v1", model: "tiny-llama", contextWindow: 32768 })
Test:   AGENT_ADAPTOR_LIVE_LLAMA=${dir} npx vitest run test/drivers/openai/live-llama.test.ts`);

/**
 * A llama-architecture GGUF (v3, f32) with random weights and a character vocabulary: the
 * sentencepiece specials, the 256 byte tokens every prompt character can fall back to, "▁" and
 * printable ASCII. Dimension 0 of every embedding is a large constant that the output matrix
 * turns into a strong penalty for specials and byte tokens, so the model samples printable
 * ASCII (valid UTF-8 whatever it picks) and never end-of-text: answers end at the token limit.
 */
function tinyLlamaGguf() {
  const nEmbd = 128, nHead = 4, nFf = 256, nLayer = 2, ctx = 32768;
  const tokens = ["<unk>", "<s>", "</s>"], types = [2, 3, 3];
  for (let b = 0; b < 256; b++) { tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`); types.push(6); }
  const firstText = tokens.length;
  tokens.push("\u2581"); types.push(1);
  for (let c = 0x21; c <= 0x7e; c++) { tokens.push(String.fromCharCode(c)); types.push(1); }
  const nVocab = tokens.length;

  let seed = 0x5eed;
  const rand = () => { // mulberry32: the same file on every machine
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const uniform = (n, scale) => Float32Array.from({ length: n }, () => (rand() * 2 - 1) * scale);
  const ones = (n) => new Float32Array(n).fill(1);

  const embd = uniform(nVocab * nEmbd, 0.1);
  const out = uniform(nVocab * nEmbd, 3);
  for (let t = 0; t < nVocab; t++) {
    embd[t * nEmbd] = 4;
    out[t * nEmbd] = t >= firstText ? 0 : -3;
  }
  const tensors = [["token_embd.weight", [nEmbd, nVocab], embd]];
  for (let i = 0; i < nLayer; i++) {
    const p = `blk.${i}.`;
    tensors.push(
      [`${p}attn_norm.weight`, [nEmbd], ones(nEmbd)],
      [`${p}attn_q.weight`, [nEmbd, nEmbd], uniform(nEmbd * nEmbd, 0.02)],
      [`${p}attn_k.weight`, [nEmbd, nEmbd], uniform(nEmbd * nEmbd, 0.02)],
      [`${p}attn_v.weight`, [nEmbd, nEmbd], uniform(nEmbd * nEmbd, 0.02)],
      [`${p}attn_output.weight`, [nEmbd, nEmbd], uniform(nEmbd * nEmbd, 0.02)],
      [`${p}ffn_norm.weight`, [nEmbd], ones(nEmbd)],
      [`${p}ffn_gate.weight`, [nEmbd, nFf], uniform(nEmbd * nFf, 0.02)],
      [`${p}ffn_up.weight`, [nEmbd, nFf], uniform(nEmbd * nFf, 0.02)],
      [`${p}ffn_down.weight`, [nFf, nEmbd], uniform(nFf * nEmbd, 0.02)],
    );
  }
  tensors.push(["output_norm.weight", [nEmbd], ones(nEmbd)], ["output.weight", [nEmbd, nVocab], out]);

  const u32 = 4, f32 = 6, bool = 7, str = 8, arr = 9, i32 = 5;
  const kv = [
    ["general.architecture", str, "llama"],
    ["general.name", str, "tiny-llama"],
    ["general.alignment", u32, 32],
    ["llama.context_length", u32, ctx],
    ["llama.embedding_length", u32, nEmbd],
    ["llama.block_count", u32, nLayer],
    ["llama.feed_forward_length", u32, nFf],
    ["llama.attention.head_count", u32, nHead],
    ["llama.attention.head_count_kv", u32, nHead],
    ["llama.rope.dimension_count", u32, nEmbd / nHead],
    ["llama.attention.layer_norm_rms_epsilon", f32, 1e-5],
    ["tokenizer.ggml.model", str, "llama"],
    ["tokenizer.ggml.tokens", arr, [str, tokens]],
    ["tokenizer.ggml.scores", arr, [f32, tokens.map(() => 0)]],
    ["tokenizer.ggml.token_type", arr, [i32, types]],
    ["tokenizer.ggml.bos_token_id", u32, 1],
    ["tokenizer.ggml.eos_token_id", u32, 2],
    ["tokenizer.ggml.unknown_token_id", u32, 0],
    ["tokenizer.ggml.add_bos_token", bool, true],
    ["tokenizer.ggml.add_eos_token", bool, false],
  ];

  const parts = [];
  const push = (buf) => parts.push(buf);
  const num = (type, v) => {
    const b = Buffer.alloc(type === "u64" ? 8 : 4);
    if (type === "u64") b.writeBigUInt64LE(BigInt(v));
    else if (type === u32) b.writeUInt32LE(v);
    else if (type === i32) b.writeInt32LE(v);
    else if (type === f32) b.writeFloatLE(v);
    return b;
  };
  const string = (s) => { const b = Buffer.from(s, "utf8"); push(num("u64", b.length)); push(b); };
  const value = (type, v) => {
    if (type === str) string(v);
    else if (type === bool) push(Buffer.from([v ? 1 : 0]));
    else if (type === arr) { push(num(u32, v[0])); push(num("u64", v[1].length)); for (const x of v[1]) value(v[0], x); }
    else push(num(type, v));
  };

  push(Buffer.from("GGUF", "latin1"));
  push(num(u32, 3));
  push(num("u64", tensors.length));
  push(num("u64", kv.length));
  for (const [key, type, v] of kv) { string(key); push(num(u32, type)); value(type, v); }
  const align = (n) => Math.ceil(n / 32) * 32;
  const offsets = [];
  let size = 0;
  for (const [name, dims, data] of tensors) {
    string(name);
    push(num(u32, dims.length));
    for (const d of dims) push(num("u64", d));
    push(num(u32, 0)); // GGML_TYPE_F32
    push(num("u64", size));
    offsets.push(size);
    size = align(size + data.byteLength);
  }
  const header = Buffer.concat(parts);
  const start = align(header.length); // tensor data starts aligned; offsets are relative to it
  const file = Buffer.alloc(start + size);
  header.copy(file, 0);
  tensors.forEach(([, , data], i) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(file, start + offsets[i]));
  return file;
}
