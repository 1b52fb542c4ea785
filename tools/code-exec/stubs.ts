/**
 * The generated `hermes_tools` module, one function per tool the script may
 * call, in the script's language. Each call is one line of JSON over the
 * run's Unix socket (Python finds it in $HERMES_RPC_SOCKET; the Node module,
 * generated per run, has the path written in) — `{"id", "tool", "args"}` out,
 * `{"id", "result"}` back, the result being the tool's own text — and returns the
 * result parsed as JSON when it is JSON (a dict / object), else the text.
 */
import type { StubTool } from "./sandbox-tools.js";

const PY_KEYWORDS = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
]);

const PY_HEADER = `"""Tools of the agent that runs this script (generated for this run).

Each function calls the agent's tool over a local socket and returns its
result: a dict when the tool answered JSON, else the text. Errors come back
as results too (a dict with "error"), never as exceptions.
"""
import json as _json
import os as _os
import socket as _socket
import threading as _threading

_lock = _threading.Lock()
_conn = None
_buf = b""
_next_id = 0


def call_tool(tool, args=None, **kwargs):
    """Calls any allowed tool by name: call_tool("read_file", path="a.txt")."""
    global _conn, _buf, _next_id
    payload = dict(args or {}, **kwargs)
    payload = {k: v for k, v in payload.items() if v is not None}
    with _lock:
        if _conn is None:
            _conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            _conn.connect(_os.environ["HERMES_RPC_SOCKET"])
        _next_id += 1
        _conn.sendall((_json.dumps({"id": _next_id, "tool": tool, "args": payload}) + "\\n").encode("utf-8"))
        while b"\\n" not in _buf:
            chunk = _conn.recv(65536)
            if not chunk:
                raise RuntimeError("the agent closed the tool connection")
            _buf += chunk
        line, _buf = _buf.split(b"\\n", 1)
    result = _json.loads(line.decode("utf-8")).get("result", "")
    try:
        return _json.loads(result)
    except ValueError:
        return result
`;

function pyString(text: string): string {
  return JSON.stringify(text); // a JSON string literal is a valid Python string literal
}

function pyFunction(t: StubTool): string {
  const params = t.params.filter((p) => !PY_KEYWORDS.has(p.name));
  const sig = params.map((p) => (p.required ? p.name : `${p.name}=None`)).join(", ");
  const args = params.map((p) => `${pyString(p.name)}: ${p.name}`).join(", ");
  return `\n\ndef ${t.name}(${sig}):\n    ${pyString(t.summary)}\n    return call_tool(${pyString(t.name)}, {${args}})\n`;
}

export function pythonModule(tools: readonly StubTool[]): string {
  return (
    PY_HEADER +
    tools
      .filter((t) => !PY_KEYWORDS.has(t.name))
      .map(pyFunction)
      .join("")
  );
}

const JS_HEADER = `// Tools of the agent that runs this script (generated for this run).
// Each function takes the tool's arguments as one object, calls the agent's
// tool over a local socket and resolves to its result: an object when the
// tool answered JSON, else the text. Errors come back as results too (an
// object with "error"), never as rejections. Calls may run concurrently.
import { createConnection } from "node:net";

let conn = null;
let buf = "";
let nextId = 0;
const waiting = new Map();

function settleAll(error) {
  for (const w of waiting.values()) w.reject(error);
  waiting.clear();
}

function connect() {
  if (conn) return conn;
  conn = createConnection(SOCKET);
  conn.setEncoding("utf8");
  conn.on("data", (data) => {
    buf += data;
    for (let i = buf.indexOf("\\n"); i >= 0; i = buf.indexOf("\\n")) {
      const reply = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      const w = waiting.get(reply.id);
      waiting.delete(reply.id);
      w?.resolve(reply.result ?? "");
    }
    if (waiting.size === 0) conn?.unref(); // an idle connection must not keep the script alive
  });
  conn.on("error", (err) => settleAll(err));
  conn.on("close", () => {
    settleAll(new Error("the agent closed the tool connection"));
    conn = null;
  });
  return conn;
}

/** Calls any allowed tool by name: await callTool("read_file", { path: "a.txt" }). */
export function callTool(tool, args = {}) {
  const c = connect();
  c.ref();
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    const parse = (text) => {
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve(text);
      }
    };
    waiting.set(id, { resolve: parse, reject });
    c.write(JSON.stringify({ id, tool, args }) + "\\n");
  });
}
`;

/** The Node module connects to `socketPath` directly (it is generated per run, so the path is known). */
export function nodeModule(tools: readonly StubTool[], socketPath: string): string {
  const fns = tools.map((t) => {
    const params = t.params.map((p) => `${p.name}${p.required ? "" : "?"}`).join(", ");
    return `\n/** ${t.summary.replace(/\*\//g, "* /")} Arguments: { ${params} } */\nexport const ${t.name} = (args = {}) => callTool(${JSON.stringify(t.name)}, args);\n`;
  });
  return `${JS_HEADER}const SOCKET = ${JSON.stringify(socketPath)};\n${fns.join("")}`;
}
