import { tf } from "../lib/tf.ts";
const N = 32, T = 256, hd = 32;
const a = tf.randomNormal([N, T, hd]) as tf.Tensor3D;
const b = tf.randomNormal([N, hd, T]) as tf.Tensor3D;
function time(name: string, f: () => tf.Tensor) { f().dispose(); const t0 = performance.now(); for (let i = 0; i < 5; i++) { const r = f(); r.dataSync(); r.dispose(); } console.log(name, ((performance.now() - t0) / 5).toFixed(1), "ms"); }
time("batched 3D", () => tf.matMul(a, b));
time("unstack+2D+stack", () => tf.tidy(() => { const as = tf.unstack(a); const bs = tf.unstack(b); return tf.stack(as.map((x, i) => tf.matMul(x as tf.Tensor2D, bs[i] as tf.Tensor2D))); }));
time("unstack only", () => tf.tidy(() => { const as = tf.unstack(a); return as[5]!.add(0); }));
time("split only", () => tf.tidy(() => { const as = tf.split(a, N, 0); return as[5]!.add(0); }));
time("slice loop", () => tf.tidy(() => { const as = Array.from({length: N}, (_, i) => tf.slice(a, [i, 0, 0], [1, T, hd]).reshape([T, hd])); return as[5]!.add(0); }));
time("stack 32", () => tf.tidy(() => { const as = Array.from({length: N}, () => tf.zeros([T, T])); return tf.stack(as); }));
