#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime (the CPU build inside the npm package
// onnxruntime-node) and prints one JSON line of timings: bench/models.cpp drives it to
// put ONNX Runtime next to ge on the same file.
//
//   node ort_bench.js --model M.onnx [--batch B] [--threads T] [--warmup W] [--runs N]
//                     [--seconds S] [--shape name:d0,d1,...]... [--input name:FILE]...
//                     [--save-outputs FILE] [--random-batches N:LO:HI]
//
// Inputs are seeded random: f32 uniform in [-1, 1), integer inputs all ones (an
// attention mask that attends everywhere). A symbolic (dim_param) dim takes --batch when
// it is the first dim, else the dims come from --shape. The session: intra-op threads
// T, one inter-op thread, sequential execution, every graph optimization.
// --input name:FILE feeds that input the raw bytes of FILE instead (little-endian, of the
// input's type; its dims as above). --save-outputs FILE writes the outputs of the last
// run to FILE, each converted to float32, concatenated in the session's output order
// (bench/suite.cpp compares them with ge's). --random-batches N:LO:HI runs N times after
// the warm-up, each at a batch drawn from [LO, HI] by the generator bench/dynamic.cpp
// uses (x = x * 6364136223846793005 + 1442695040888963407 mod 2^64 from x = 3, batch
// LO + (x >> 33) mod (HI - LO + 1)), one input per batch made first: the peak RSS of a
// process serving a random sequence of batches, next to ge's over the same sequence.
//
// Output: {"p50_ms", "p90_ms", "mean_ms", "min_ms", "runs", "load_ms", "ort_version",
// "peak_rss_mib", "baseline_rss_mib"}: peak_rss_mib is the process's peak resident
// memory (getrusage ru_maxrss), baseline_rss_mib the same before the model was loaded
// (Node itself). Errors: a message on stderr and exit status 1 (2 for bad arguments).
'use strict';

const fs = require('fs');

function usage(message) {
  process.stderr.write(`ort_bench: ${message}\n` +
                       'usage: node ort_bench.js --model M.onnx [--batch B] [--threads T] [--warmup W] [--runs N] ' +
                       '[--seconds S] [--shape name:d0,d1,...]... [--input name:FILE]... ' +
                       '[--save-outputs FILE]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const args = {model: '', batch: 1, threads: 2, warmup: 3, runs: 10, seconds: 0, shapes: {}, inputs: {},
                save: '', random: null};
  const int = (flag, text, min) => {
    const v = Number(text);
    if (!Number.isInteger(v) || v < min) usage(`${flag} '${text}': expected an integer >= ${min}`);
    return v;
  };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) usage(`${flag} needs a value`);
    ++i;
    switch (flag) {
      case '--model': args.model = value; break;
      case '--batch': args.batch = int(flag, value, 1); break;
      case '--threads': args.threads = int(flag, value, 1); break;
      case '--warmup': args.warmup = int(flag, value, 0); break;
      case '--runs': args.runs = int(flag, value, 1); break;
      case '--seconds': {
        const v = Number(value);
        if (!(v >= 0)) usage(`--seconds '${value}': expected a number >= 0`);
        args.seconds = v;
        break;
      }
      case '--shape': {
        const m = /^([^:]+):(\d+(?:,\d+)*)$/.exec(value);
        if (!m) usage(`--shape '${value}': expected name:d0,d1,...`);
        args.shapes[m[1]] = m[2].split(',').map(Number);
        break;
      }
      case '--input': {
        const m = /^([^:]+):(.+)$/.exec(value);
        if (!m) usage(`--input '${value}': expected name:FILE`);
        args.inputs[m[1]] = m[2];
        break;
      }
      case '--save-outputs': args.save = value; break;
      case '--random-batches': {
        const m = /^(\d+):(\d+):(\d+)$/.exec(value);
        if (!m || Number(m[2]) < 1 || Number(m[3]) < Number(m[2])) usage(`--random-batches '${value}': expected N:LO:HI`);
        args.random = {n: Number(m[1]), lo: Number(m[2]), hi: Number(m[3])};
        break;
      }
      default: usage(`unknown option '${flag}'`);
    }
  }
  if (!args.model) usage('--model is required');
  return args;
}

// A small seeded generator (mulberry32): the same inputs on every run of the script.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mib = (kib) => Math.round((kib / 1024) * 10) / 10;

function percentile(sorted, p) {
  // Nearest rank, as bench/models.cpp computes ours.
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[rank - 1];
}

// A tensor of `type` and `dims` over the raw bytes of `file`.
function fileTensor(ort, file, type, dims, count) {
  const arrays = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array};
  if (!arrays[type]) throw new Error(`--input ${file}: the script reads float32, int64 and int32, not ${type}`);
  const bytes = fs.readFileSync(file);
  const Array = arrays[type];
  if (bytes.length !== count * Array.BYTES_PER_ELEMENT) {
    throw new Error(`--input ${file}: ${bytes.length} bytes, the dims [${dims}] of ${type} need ` +
                    `${count * Array.BYTES_PER_ELEMENT}`);
  }
  const data = new Array(count);
  new Uint8Array(data.buffer).set(bytes);
  return new ort.Tensor(type, data, dims);
}

// Every output as float32, one after the other, into `file`.
function saveOutputs(file, tensors) {
  const parts = tensors.map((t) => {
    const f = t.data instanceof Float32Array ? t.data : Float32Array.from(t.data, Number);
    return Buffer.from(f.buffer, f.byteOffset, f.byteLength);
  });
  fs.writeFileSync(file, Buffer.concat(parts));
}

// The session's inputs at `batch` (a symbolic first dim), seeded as the file comment says.
function makeFeeds(ort, session, args, batch) {
  const next = random(42);
  const feeds = {};
  for (let k = 0; k < session.inputNames.length; ++k) {
    const name = session.inputNames[k];
    const meta = session.inputMetadata ? session.inputMetadata[k] : undefined;
    let dims = args.shapes[name];
    if (!dims) {
      if (!meta || !meta.shape) throw new Error(`input '${name}': no --shape and no shape in the model`);
      dims = meta.shape.map((d, i) => {
        if (typeof d === 'number' && d >= 0) return d;
        if (i === 0) return batch;
        throw new Error(`input '${name}' dim ${i} is '${d}'; give it with --shape ${name}:...`);
      });
    }
    const count = dims.reduce((a, b) => a * b, 1);
    const type = meta && meta.type ? meta.type : 'float32';
    if (args.inputs[name]) {
      feeds[name] = fileTensor(ort, args.inputs[name], type, dims, count);
    } else if (type === 'float32') {
      const data = new Float32Array(count);
      for (let i = 0; i < count; ++i) data[i] = next() * 2 - 1;
      feeds[name] = new ort.Tensor('float32', data, dims);
    } else if (type === 'int64') {
      feeds[name] = new ort.Tensor('int64', new BigInt64Array(count).fill(1n), dims);
    } else if (type === 'int32') {
      feeds[name] = new ort.Tensor('int32', new Int32Array(count).fill(1), dims);
    } else {
      throw new Error(`input '${name}' has type ${type}; the script feeds float32, int64 and int32`);
    }
  }
  return feeds;
}

// --random-batches: N runs at batches drawn as bench/dynamic.cpp draws them.
async function randomBatches(session, args, feedsFor, baseline, loadMs, ort) {
  const byBatch = {};
  for (let b = args.random.lo; b <= args.random.hi; ++b) byBatch[b] = feedsFor(b);
  for (let i = 0; i < args.warmup; ++i) await session.run(byBatch[args.random.lo]);
  let x = 3n;
  const span = BigInt(args.random.hi - args.random.lo + 1);
  const times = [];
  for (let i = 0; i < args.random.n; ++i) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    const b = args.random.lo + Number((x >> 33n) % span);
    const t = process.hrtime.bigint();
    await session.run(byBatch[b]);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return summary(times, loadMs, ort, baseline);
}

// The JSON line's fields (see the file comment) for these run times.
function summary(times, loadMs, ort, baseline) {
  const sorted = [...times].sort((a, b) => a - b);
  const round = (v) => Math.round(v * 1000) / 1000;
  return {
    p50_ms: round(percentile(sorted, 0.5)),
    p90_ms: round(percentile(sorted, 0.9)),
    mean_ms: round(times.reduce((a, b) => a + b, 0) / times.length),
    min_ms: round(sorted[0]),
    runs: times.length,
    load_ms: round(loadMs),
    ort_version: ort.env.versions ? ort.env.versions.node || ort.env.versions.common : 'unknown',
    peak_rss_mib: mib(process.resourceUsage().maxRSS),
    baseline_rss_mib: mib(baseline),
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(args.model)) throw new Error(`no model file '${args.model}'`);
  const baseline = process.resourceUsage().maxRSS;
  const ort = require('onnxruntime-node');

  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(args.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;

  const feedsFor = (batch) => makeFeeds(ort, session, args, batch);
  if (args.random) {
    process.stdout.write(JSON.stringify(await randomBatches(session, args, feedsFor, baseline, loadMs, ort)) + '\n');
    await session.release();
    return;
  }
  const feeds = feedsFor(args.batch);

  let last;
  for (let i = 0; i < args.warmup; ++i) last = await session.run(feeds);
  const times = [];
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(args.seconds * 1e9));
  while (times.length < args.runs || process.hrtime.bigint() < deadline) {
    const t = process.hrtime.bigint();
    last = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const result = summary(times, loadMs, ort, baseline);

  if (args.save) saveOutputs(args.save, session.outputNames.map((n) => last[n]));
  process.stdout.write(JSON.stringify(result) + '\n');
  await session.release();
}

main().catch((e) => {
  process.stderr.write(`ort_bench: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
