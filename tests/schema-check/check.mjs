// `cite mcp` seen by a real MCP client (the official TypeScript SDK, over stdio) and a
// strict JSON Schema validator (Ajv in strict mode, draft-07 and 2020-12).
//
// Usage: node check.mjs CITE_BINARY LEDGER WORK_DIR
//
// For every tool in tools/list: its inputSchema and outputSchema compile under Ajv's
// strict mode (no unknown formats or keywords, no union types, …); then every tool is
// called with real arguments, each argument object is checked against the inputSchema,
// and each structuredContent against the outputSchema (the SDK checks it too). Arguments
// the server refuses for breaking a declared limit must also fail the inputSchema.
// Prints one JSON summary line; exits 1 on the first failure.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [cite, ledger, dir] = process.argv.slice(2);
if (!cite || !ledger || !dir) {
  console.error("usage: node check.mjs CITE_BINARY LEDGER WORK_DIR");
  process.exit(2);
}

function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

// `strict: true` turns on every strict check (strictSchema, strictNumbers, strictTypes,
// strictTuples, strictRequired) as errors, not warnings.
const validators = [
  ["draft-07", new Ajv({ strict: true, allErrors: true })],
  ["2020-12", new Ajv2020({ strict: true, allErrors: true })],
];

function compile(tool, which, schema) {
  if (!schema) fail(`${tool}: no ${which}`);
  if (schema.type !== "object") fail(`${tool}: ${which} is not an object schema`);
  const compiled = [];
  for (const [draft, ajv] of validators) {
    try {
      compiled.push([draft, ajv.compile(schema)]);
    } catch (e) {
      fail(`${tool}: ${which} does not compile under Ajv strict (${draft}): ${e.message}`);
    }
  }
  return (value) => {
    for (const [draft, validate] of compiled) {
      if (!validate(value)) {
        return `${draft}: ${JSON.stringify(validate.errors)}`;
      }
    }
    return null;
  };
}

const transport = new StdioClientTransport({
  command: cite,
  args: ["--ledger", ledger, "mcp"],
  stderr: "inherit",
});
const client = new Client({ name: "cite-schema-check", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
const input = {};
const output = {};
for (const t of tools) {
  input[t.name] = compile(t.name, "inputSchema", t.inputSchema);
  output[t.name] = compile(t.name, "outputSchema", t.outputSchema);
}
const expected = ["add", "export", "ingest", "list", "quote", "render", "report", "reset", "retitle", "retract", "show", "verify"];
const names = tools.map((t) => t.name).sort();
if (JSON.stringify(names) !== JSON.stringify(expected)) {
  fail(`tools/list gives ${names}, expected ${expected}`);
}

const called = {};
async function call(name, args) {
  const bad = input[name](args);
  if (bad) fail(`${name} ${JSON.stringify(args)}: arguments do not fit the inputSchema: ${bad}`);
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    fail(`${name} ${JSON.stringify(args)} was refused: ${JSON.stringify(result.content)}`);
  }
  const wrong = output[name](result.structuredContent);
  if (wrong) {
    fail(`${name} ${JSON.stringify(args)}: structuredContent does not fit the outputSchema: ${wrong}\n${JSON.stringify(result.structuredContent)}`);
  }
  called[name] = (called[name] ?? 0) + 1;
  return result;
}

/// Arguments that break a declared limit: the inputSchema refuses them, and so does the
/// server (a tool error or a protocol error, never a success).
async function refused(name, args) {
  if (!input[name](args)) fail(`${name} ${JSON.stringify(args)}: the inputSchema accepts it`);
  let result;
  try {
    result = await client.callTool({ name, arguments: args });
  } catch (e) {
    return;
  }
  if (!result.isError) fail(`${name} ${JSON.stringify(args)}: the server accepted it`);
}

/// Arguments the inputSchema accepts that the server refuses as a tool error (an id the
/// ledger lacks, a selection jsonl cannot take).
async function toolError(name, args) {
  const bad = input[name](args);
  if (bad) fail(`${name} ${JSON.stringify(args)}: arguments do not fit the inputSchema: ${bad}`);
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError) fail(`${name} ${JSON.stringify(args)}: the server accepted it`);
}

const page = "Intro.\n\nThe ledger hands out small integer ids at retrieval time.\nEnd.";
await call("add", { urls: ["https://example.com/a", "https://example.com/b"] });
await call("add", {
  urls: ["https://example.com/c"],
  title: "Page C",
  accessed: "2024-05-06",
  via: "web",
  snapshot: page,
});
await call("ingest", { json: '{"results": [{"url": "https://example.org/x", "title": "X"}, {"url": "https://exa mple.org"}]}' });
await call("ingest", { json: { results: [{ link: "https://example.org/y", name: "Y" }] }, via: "rss" });
await call("ingest", { json: [{ url: "https://example.org/z" }] });
await call("quote", { id: 1, text: "hands out small integer ids", evidence: page });
await call("quote", { id: 3, text: "integer ids at retrieval time" });

const first = await call("list", {});
if (first.structuredContent.matched !== 6) fail(`list matched ${first.structuredContent.matched}`);
let next = (await call("list", { limit: 4 })).structuredContent.next_call;
if (!next) fail("list with limit 4 of 6 gives no next_call");
const second = await call(next.name, next.arguments);
if (second.structuredContent.sources.length !== 2) fail("the second page does not hold the last 2");
await call("list", { query: "EXAMPLE.ORG", via: "rss" });
await call("show", { id: 1 });
await call("show", { id: 3 });
// Issue 18: ids as models often send them, as digit strings; lists as arrays.
await call("show", { id: "3" });
await call("quote", { id: "1", text: "small integer ids at retrieval", evidence: page });
await call("add", { urls: "https://example.com/d" });

const draft = "The ledger assigns ids when a page is fetched [3].\nIds never change [1].\n";
const draftFile = join(dir, "draft.md");
writeFileSync(draftFile, draft);
await call("render", {});
await call("render", { style: "evidence", only: "1,3-4" });
await call("render", { draft });
const rewritten = await call("render", { replace_in: draftFile });
if (!readFileSync(draftFile, "utf8").includes(rewritten.structuredContent.block)) {
  fail("render with replace_in did not write the block into the draft");
}
const verified = await call("verify", { path: draftFile, evidence: true, min_coverage: 0.5 });
if (verified.structuredContent.exit_code !== 0 || verified.structuredContent.evidence.length !== 2) {
  fail(`verify of the rewritten draft: ${JSON.stringify(verified.structuredContent)}`);
}
await call("verify", { draft: "A claim with no source registered [9].\n", strict: true });
await call("verify", { path: draftFile });
// Findings that name their sentences, the support check's sentences (a table row and a
// tool's figures among them), and the report's counts, under strict and not.
const checked =
  "# Ids\n\nThe ledger hands out small integer ids at retrieval time.[3] It hands out 7 ids at retrieval time.[3]\n" +
  "A claim here is glued to a word[3]. It counted 12 ids in all.[3][tool:python]\n\n" +
  "| What | Count |\n|---|---|\n| ids | 9 [3] |\n";
for (const strict of [false, true]) {
  const sc = (await call("verify", { draft: checked, support: true, strict })).structuredContent;
  const named = [...sc.errors, ...sc.warnings].filter((f) => f.sentences?.length);
  if (named.length < 3 || !named.every((f) => f.sentences.every((s) => Number.isInteger(s.index) && s.text))) {
    fail(`verify with support: findings do not name their sentences: ${JSON.stringify(sc)}`);
  }
  if (!sc.support.sentences.some((s) => s.text.startsWith("|")) || sc.support.tool_figures !== 1) {
    fail(`verify with support: no table row or tool figure: ${JSON.stringify(sc.support)}`);
  }
  const report = (await call("report", { draft: checked, strict })).structuredContent;
  if (report.passed || !report.verdict.startsWith("verification failed: ") || report.failing_sentences < 2) {
    fail(`report: ${JSON.stringify(report)}`);
  }
}
await call("render", { only: [1, "3"] });
await call("export", { format: "csl-json" });
await call("export", { format: "ris", cited_in: draft });
await call("export", { format: "biblatex", only: "1,3", epoch: "1" });
await call("export", { format: "jsonl" });
await toolError("export", { format: "ris", only: "99" });
await toolError("export", { format: "jsonl", only: "1" });
await toolError("render", { only: [99] });
await call("reset", {});
await call("list", {});
await call("list", { epoch: 1, limit: 1 });
await call("show", { id: 2, epoch: 1 });

await refused("add", { urls: [] });
await refused("quote", { id: 0, text: "hands out small integer ids", evidence: page });
await refused("verify", { draft, min_coverage: 1.5 });
await refused("list", { limit: 0 });
await refused("show", { id: 1, epoch: 0 });
await refused("add", { urls: ["https://example.com/a"], bogus: true });

await client.close();
console.log(JSON.stringify({ tools: names, called }));
