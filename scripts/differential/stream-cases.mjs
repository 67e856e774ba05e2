// Differential cases for `toon::stream` from the reference's `decodeStreamSync`
// (@toon-format/toon): every decode case of the official fixtures, and random JSON values
// encoded by the reference under each delimiter, each as written and with one mutation, read
// strict and non-strict. One JSON line per case: the text, the options, and the reference's
// events (`{"events": [...]}`, or `{"events": [...], "err": message}` when it threw after
// them). Usage: node stream-cases.mjs SEED COUNT FIXTURES_DIR OUT
import {encode, decodeStreamSync} from '@toon-format/toon';
import fs from 'fs';
import path from 'path';

let seed = Number(process.argv[2] || 1);
function rnd() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
const words = ['a','b','id','name','x y','-','1','true','null','',' lead','q"uote','back\\slash','tab\there','new\nline','#','[1]','{k}',':','a,b','a|b','é','-5','1e5','0.1','007'];
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
function prim() {
  const r = rnd();
  if (r < 0.3) return pick(words);
  if (r < 0.5) return Math.floor(rnd() * 2000) - 1000;
  if (r < 0.6) return (rnd() - 0.5) * Math.pow(10, Math.floor(rnd() * 40) - 20);
  if (r < 0.7) return rnd() < 0.5;
  if (r < 0.75) return null;
  return pick(words) + Math.floor(rnd() * 10);
}
function val(d) {
  const r = rnd();
  if (d > 4 || r < 0.3) return prim();
  if (r < 0.55) { const a = []; for (let i = Math.floor(rnd() * 5); i > 0; i--) a.push(val(d + 1)); return a; }
  if (r < 0.75) { // uniform rows, sometimes with a nested group
    const keys = []; for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) keys.push(pick(words));
    const a = []; for (let i = 1 + Math.floor(rnd() * 4); i > 0; i--) { const o = {}; for (const k of keys) o[k] = rnd() < 0.2 ? {z: prim()} : prim(); a.push(o); }
    return a;
  }
  const o = {}; for (let i = Math.floor(rnd() * 6); i > 0; i--) o[pick(words)] = val(d + 1); return o;
}
function mutate(t) {
  const p = Math.floor(rnd() * Math.max(1, t.length));
  switch (Math.floor(rnd() * 4)) {
    case 0: return t.slice(0, p) + t.slice(p + 1);
    case 1: return t.slice(0, p) + t[p] + t.slice(p);
    case 2: return t.slice(0, p) + ' ' + t.slice(p);
    default: return t.slice(0, p) + '\n' + t.slice(p);
  }
}
// A number as JavaScript writes it (`String(value)`), so that no JSON parser rounds it.
const number = (e) => e.type === 'primitive' && typeof e.value === 'number' ? {type: 'primitive', number: String(e.value)} : e;
function run(text, options) {
  const events = [];
  try {
    for (const e of decodeStreamSync(text.split('\n'), options)) events.push(number(e));
    return {events};
  } catch (e) {
    return {events, err: String(e.message)};
  }
}
const out = [];
const add = (text, options) => out.push(JSON.stringify({text, options, reference: run(text, options)}));
const fixtures = path.join(process.argv[4], 'decode');
for (const file of fs.readdirSync(fixtures).sort()) {
  for (const c of JSON.parse(fs.readFileSync(path.join(fixtures, file), 'utf8')).tests) {
    const options = c.options || {};
    add(c.input, {strict: options.strict ?? true, indent: options.indentSize ?? 2});
    add(c.input, {strict: !(options.strict ?? true), indent: options.indentSize ?? 2});
  }
}
const count = Number(process.argv[3] || 3000);
for (let i = 0; i < count; i++) {
  const text = encode(val(0), {delimiter: [',', '\t', '|'][i % 3]});
  const strict = i % 2 === 0;
  add(text, {strict, indent: 2});
  add(mutate(text), {strict, indent: 2});
}
fs.writeFileSync(process.argv[5] || 'stream-cases.jsonl', out.join('\n'));
