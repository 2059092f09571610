// bench.js times the node package split-sms on the texts in a JSON file
// ([{"name": ..., "text": ...}]) and prints one JSON object on stdout:
// ns per split() and per count (split() with {summary: true}, which builds
// no part texts), and the parts and units split-sms found, so that the Go
// side can compare them with msgkit's.
//
// Usage: node bench.js testdata/texts.json [milliseconds per measurement]
'use strict';

const fs = require('fs');
const splitter = require('split-sms');

const texts = JSON.parse(fs.readFileSync(process.argv[2] || 'testdata/texts.json', 'utf8'));
const budgetNs = BigInt(Math.round(Number(process.argv[3] || 300) * 1e6));

// sink keeps every result alive, so the JIT cannot drop a call.
let sink = 0;

// nsPerOp calls fn in growing batches until one batch lasts the budget:
// the growing batches are the warm-up (the JIT compiles fn on the way).
function nsPerOp(fn) {
  for (let n = 1; ; n *= 2) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      sink += fn().parts.length;
    }
    const took = process.hrtime.bigint() - start;
    if (took >= budgetNs) {
      return Number(took) / n;
    }
  }
}

// units converts split-sms's bytes to msgkit's units: septets for GSM,
// UTF-16 units for UCS-2.
function units(info, bytes) {
  return info.characterSet === splitter.GSM ? bytes : bytes / 2;
}

const results = texts.map(({ name, text }) => {
  const info = splitter.split(text);
  return {
    name,
    dcs: info.characterSet === splitter.GSM ? 'GSM' : 'UCS',
    units: units(info, info.bytes),
    parts: info.parts.map((p) => ({ text: p.content, units: units(info, p.bytes) })),
    countNs: nsPerOp(() => splitter.split(text, { summary: true })),
    splitNs: nsPerOp(() => splitter.split(text)),
  };
});

process.stdout.write(JSON.stringify({ node: process.version, results, sink }) + '\n');
