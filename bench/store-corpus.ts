/**
 * A deterministic synthetic chat corpus for the store benchmark: words drawn
 * from a 50k-word vocabulary with a Zipf distribution (s ≈ 1, like natural
 * text), common English/technical words at the head, tool calls with JSON
 * arguments, tool results, and ~5% CJK messages.
 */
import type { Message } from "../agent/types.js";

export type Rng = () => number;

/** Mulberry32: small, fast, seedable. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HEAD = (
  "the to and of a in is it you that for on with this be are i not have as can we was if but or error file run test " +
  "code function will do at your from use by an all there so what just need config should which like when one data server " +
  "value build check add change set get update fix log line type return new output version install path command"
).split(" ");

export const TOOLS = ["web_search", "read_file", "write_file", "terminal", "patch", "search_files", "browser_navigate", "memory", "session_search", "todo"];

const CJK_POOL =
  "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴具存底营费费日本語東京大学会議資料確認予定変更".split(
    "",
  );

export class Corpus {
  readonly vocab: string[];
  private readonly cdf: Float64Array;
  constructor(
    private readonly r: Rng,
    size = 50_000,
  ) {
    this.vocab = makeVocab(r, size);
    this.cdf = zipfCdf(size, 1.0);
  }

  /** A word by Zipf rank (0 = most common). */
  word(): string {
    const x = this.r();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.cdf[mid] ?? 1) < x) lo = mid + 1;
      else hi = mid;
    }
    return this.vocab[lo] ?? "the";
  }

  words(n: number): string {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.word());
    return out.join(" ");
  }

  cjk(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += CJK_POOL[Math.floor(this.r() * CJK_POOL.length)] ?? "的";
    return s;
  }

  private int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }

  /** One message of a realistic mix. */
  message(): Message {
    const x = this.r();
    if (x < 0.05) return { role: "user", content: `${this.cjk(this.int(6, 40))} ${this.words(this.int(0, 6))}` };
    if (x < 0.33) return { role: "user", content: this.words(this.int(4, 40)) };
    if (x < 0.6) return { role: "assistant", content: this.words(this.int(15, 120)), finish_reason: "stop" };
    if (x < 0.78) return this.toolCall();
    const tool = TOOLS[this.int(0, TOOLS.length - 1)] ?? "terminal";
    return {
      role: "tool",
      tool_call_id: `call_${this.int(1, 1e9)}`,
      tool_name: tool,
      content: JSON.stringify({ output: this.words(this.int(10, 80)), exit_code: 0 }),
    };
  }

  private toolCall(): Message {
    const n = this.r() < 0.8 ? 1 : 2;
    const calls = Array.from({ length: n }, () => {
      const name = TOOLS[this.int(0, TOOLS.length - 1)] ?? "terminal";
      const args = { query: this.words(this.int(2, 6)), path: `/srv/${this.word()}/${this.word()}.ts` };
      return { id: `call_${this.int(1, 1e9)}`, type: "function" as const, function: { name, arguments: JSON.stringify(args) } };
    });
    return { role: "assistant", content: this.r() < 0.5 ? null : this.words(this.int(3, 15)), tool_calls: calls, finish_reason: "tool_calls" };
  }
}

function makeVocab(r: Rng, size: number): string[] {
  const consonants = "bcdfghjklmnprstvwxz";
  const vowels = "aeiouy";
  const seen = new Set<string>(HEAD);
  const out = [...HEAD];
  while (out.length < size) {
    const len = 3 + Math.floor(r() * 8);
    let w = "";
    for (let i = 0; i < len; i++) {
      const pool = i % 2 === (r() < 0.3 ? 1 : 0) ? consonants : vowels;
      w += pool[Math.floor(r() * pool.length)];
    }
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
}

function zipfCdf(n: number, s: number): Float64Array {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += 1 / (i + 1) ** s;
    cdf[i] = acc;
  }
  for (let i = 0; i < n; i++) cdf[i] = (cdf[i] ?? 0) / acc;
  return cdf;
}
