// Differential cases from the reference encoder/decoder (@toon-format/toon): random JSON
// values encoded under each delimiter, and one mutated copy of each text decoded strict and
// non-strict. Usage: node cases.mjs SEED COUNT OUT (run by scripts/differential.sh).
import {encode, decode} from '@toon-format/toon';
import fs from 'fs';

let seed = Number(process.argv[2] || 1);
function rnd() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
const words = ['a','b','id','name','x y','-','1','true','null','',' lead','trail ','q"uote','back\\slash','tab\there','new\nline','#','[1]','{k}',':','a,b','a|b','é','日本','-5','1e5','0.1','007'];
function prim() {
  const r = rnd();
  if (r < 0.3) return words[Math.floor(rnd()*words.length)];
  if (r < 0.5) return Math.floor(rnd()*2000)-1000;
  if (r < 0.6) return (rnd()-0.5)*Math.pow(10, Math.floor(rnd()*40)-20);
  if (r < 0.7) return rnd() < 0.5;
  if (r < 0.75) return null;
  return words[Math.floor(rnd()*words.length)] + Math.floor(rnd()*10);
}
function val(d) {
  const r = rnd();
  if (d > 4 || r < 0.35) return prim();
  if (r < 0.6) { const n = Math.floor(rnd()*5); const a=[]; for (let i=0;i<n;i++) a.push(val(d+1)); return a; }
  if (r < 0.75) { // uniform rows
    const n = 1+Math.floor(rnd()*4); const keys=[]; const k=1+Math.floor(rnd()*3); for(let i=0;i<k;i++) keys.push(words[Math.floor(rnd()*words.length)]);
    const a=[]; for (let i=0;i<n;i++){ const o={}; for (const kk of keys) o[kk]= rnd()<0.2? {z: prim()} : prim(); a.push(o);} return a; }
  const o = {}; const n = Math.floor(rnd()*5); for (let i=0;i<n;i++) o[words[Math.floor(rnd()*words.length)]] = val(d+1); return o;
}
const out = [];
const N = Number(process.argv[3] || 3000);
for (let i = 0; i < N; i++) {
  const v = val(0);
  const delim = [',', '\t', '|'][i % 3];
  const t = encode(v, {delimiter: delim});
  // a mutation of the text: delete, duplicate or swap a character
  let m = t; const p = Math.floor(rnd()*Math.max(1,t.length));
  const kind = Math.floor(rnd()*3);
  if (kind === 0) m = t.slice(0,p) + t.slice(p+1); else if (kind === 1) m = t.slice(0,p) + t[p] + t.slice(p); else m = t.slice(0,p) + ' ' + t.slice(p);
  const res = (s, strict) => { try { return {ok: decode(s, {strict})}; } catch (e) { return {err: e.message}; } };
  out.push(JSON.stringify({json: JSON.stringify(v), delim, toon: t, mutated: m, strict: res(m, true), lenient: res(m, false)}));
}
fs.writeFileSync(process.argv[4] || 'cases.jsonl', out.join('\n'));
