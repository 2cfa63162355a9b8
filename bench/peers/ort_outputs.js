#!/usr/bin/env node
// Runs a one-input model with ONNX Runtime and keeps its outputs whole, whatever their
// count and dims (bench/detection.py compares detections as sets):
//
//   node ort_outputs.js M.onnx INPUT.npy OUTDIR [THREADS] [RUNS]
//
// INPUT.npy: float32, C order. Prints "p50_ms X" over RUNS timed runs after one warm-up,
// then one line per output (name, type, dims), and writes each output of the last run as
// OUTDIR/<name>.npy (characters other than letters, digits and _ as _).
'use strict';
const ort = require('onnxruntime-node');
const fs = require('fs');
function readNpy(p) {
  const b = fs.readFileSync(p); const hl = b.readUInt16LE(8); const h = b.slice(10, 10 + hl).toString();
  const shape = h.match(/'shape': \(([^)]*)\)/)[1].split(',').filter(s => s.trim()).map(Number);
  const data = new Float32Array(b.buffer.slice(b.byteOffset + 10 + hl, b.byteOffset + b.length));
  return new ort.Tensor('float32', data, shape);
}
function writeNpy(p, t) {
  const descr = {float32: '<f4', int64: '<i8', int32: '<i4', bool: '|b1'}[t.type];
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${t.dims.join(', ')}${t.dims.length == 1 ? ',' : ''}), }`;
  while ((10 + h.length + 1) % 64) h += ' '; h += '\n';
  const head = Buffer.alloc(10); head.write('\x93NUMPY', 0, 'latin1'); head[6] = 1; head[7] = 0; head.writeUInt16LE(h.length, 8);
  const d = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  fs.writeFileSync(p, Buffer.concat([head, Buffer.from(h, 'latin1'), d]));
}
(async () => {
  const [model, input, out, threads, runsText] = process.argv.slice(2);
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: Number(threads || 1), interOpNumThreads: 1,
                                                      executionMode: 'sequential', graphOptimizationLevel: 'all'});
  const feeds = {}; feeds[s.inputNames[0]] = readNpy(input);
  let r = await s.run(feeds);
  const runs = Number(runsText || 5); const t = [];
  for (let i = 0; i < runs; ++i) { const t0 = process.hrtime.bigint(); r = await s.run(feeds); t.push(Number(process.hrtime.bigint() - t0) / 1e6); }
  t.sort((a, b) => a - b); console.log('p50_ms', t[Math.floor(t.length / 2)].toFixed(3));
  fs.mkdirSync(out, {recursive: true});
  for (const n of s.outputNames) { writeNpy(`${out}/${n.replace(/[^A-Za-z0-9_]/g, '_')}.npy`, r[n]); console.log(n, r[n].type, r[n].dims); }
})();
