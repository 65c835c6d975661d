// mcp_client.mjs — engram-mcp as an MCP client sees it, through the official TypeScript SDK.
//
// Run by test_mcp.py, which starts the daemons and an engram-mcp on streamable HTTP and
// passes their addresses in the environment. Over stdio (engram-mcp launched here, with
// an admin token) and then over HTTP (the user token; a wrong token refused), it lists
// the tools, remembers two dated conversations, recalls where the user lives, reads the
// facts, their history and the profile resource, and checks the errors an agent can meet.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const env = process.env;
const require = createRequire(join(env.MCP_TOOLS_DIR, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { LATEST_PROTOCOL_VERSION } = require('@modelcontextprotocol/sdk/types.js');

let passed = 0;
let failed = 0;
function check(ok, what, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok || detail === undefined ? '' : ': ' + String(detail).slice(0, 600)}`);
}
const text = (r) => (r.content || []).map((c) => c.text || '').join('\n');

// Two conversations of one user, months apart: a home, then a move.
const earlier = {
  session_time: '2024-01-10T09:00:00Z',
  messages: [
    { role: 'user', content: 'I live in Porto and I work at a bakery.', time: '2024-01-10T09:00:00Z' },
    { role: 'assistant', content: 'Porto is lovely. How is the bakery?', time: '2024-01-10T09:00:05Z' },
  ],
};
const later = {
  session_time: '2024-06-02T18:30:00Z',
  messages: [
    { role: 'user', content: 'I moved to Lisbon last month.', time: '2024-06-02T18:30:00Z' },
    { role: 'assistant', content: 'Exciting! How are you finding Lisbon?', time: '2024-06-02T18:30:04Z' },
  ],
};

async function exercise(client, label, user) {
  const tools = await client.listTools();
  const names = tools.tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(['facts', 'forget', 'history', 'recall', 'remember']),
    `${label}: tools/list names the five tools`, names);
  check(tools.tools.every((t) => t.inputSchema?.type === 'object' && t.description.length > 80),
    `${label}: every tool has an object schema and a description`);

  for (const [which, conv] of [['earlier', earlier], ['later', later]]) {
    const r = await client.callTool({ name: 'remember', arguments: conv });
    check(!r.isError && /Remembered conversation/.test(text(r)), `${label}: remember the ${which} conversation`, text(r));
    check(r.structuredContent?.report?.chunks >= 1 && r.structuredContent?.user === user,
      `${label}: remember's structured result counts the chunks stored for ${user}`, JSON.stringify(r.structuredContent));
  }
  const again = await client.callTool({ name: 'remember', arguments: later });
  check(!again.isError && /Already remembered/.test(text(again)), `${label}: the same conversation again stores nothing`,
    text(again));

  const rec = await client.callTool({ name: 'recall', arguments: { question: 'Where do I live?' } });
  check(!rec.isError && /Lisbon/.test(text(rec)), `${label}: recall "Where do I live?" answers with Lisbon`, text(rec));
  check(Array.isArray(rec.structuredContent?.items) && rec.structuredContent.items.length > 0 &&
    typeof rec.structuredContent.context === 'string', `${label}: recall's structured result has the context and items`);
  const past = await client.callTool({ name: 'recall', arguments: { question: 'Where do I live?', at: '2024-02-01' } });
  check(!past.isError && /Porto/.test(text(past)), `${label}: recall as of 2024-02-01 finds Porto`, text(past));

  const facts = await client.callTool({ name: 'facts', arguments: { relation: 'LIVES_IN' } });
  const live = facts.structuredContent?.facts || [];
  check(!facts.isError && live.length === 1 && live[0].value === 'Lisbon' && /LIVES_IN: Lisbon/.test(text(facts)),
    `${label}: facts: LIVES_IN is Lisbon now`, text(facts));
  const then = await client.callTool({ name: 'facts', arguments: { relation: 'LIVES_IN', at: '2024-02-01' } });
  check(!then.isError && /LIVES_IN: Porto/.test(text(then)), `${label}: facts as of 2024-02-01: Porto`, text(then));

  const hist = await client.callTool({ name: 'history', arguments: { relation: 'LIVES_IN' } });
  const entries = hist.structuredContent?.history || [];
  check(!hist.isError && entries.length >= 2 && entries[0].value === 'Porto' && entries[0].current === false &&
    entries[entries.length - 1].value === 'Lisbon' && entries[entries.length - 1].current === true,
  `${label}: history: Porto replaced by Lisbon`, text(hist));

  const templates = await client.listResourceTemplates();
  check(templates.resourceTemplates.some((t) => t.uriTemplate === 'engram://users/{user}/profile'),
    `${label}: the profile resource template is listed`);
  const listed = await client.listResources();
  check(listed.resources.some((r) => r.uri === `engram://users/${user}/profile`), `${label}: ${user}'s profile is listed`);
  const profile = await client.readResource({ uri: `engram://users/${user}/profile` });
  check(/LIVES_IN: Lisbon/.test(profile.contents?.[0]?.text || ''), `${label}: the profile says Lisbon`,
    profile.contents?.[0]?.text);

  // a liking said in two conversations: what the user values, with its confidence
  for (const [said, when] of [['I love thai food.', '2024-07-01T19:00:00Z'], ['Honestly, I love thai food.', '2024-08-01T19:00:00Z']]) {
    const r = await client.callTool({ name: 'remember', arguments: { session_time: when, messages: [{ role: 'user', content: said, time: when }] } });
    check(!r.isError, `${label}: remember "${said}"`, text(r));
  }
  const food = await client.callTool({ name: 'recall', arguments: { question: 'What food should I order tonight?' } });
  const liked = (food.structuredContent?.items || []).filter((i) => i.preference);
  check(!food.isError && /What the user values/.test(text(food)) && liked.length === 1 &&
    liked[0].fact?.value === 'thai food' && Math.abs(liked[0].confidence - 0.91) < 1e-3,
  `${label}: recall shows the liking for thai food with confidence 0.91`, text(food));

  // errors an agent can meet: a tool error it can read, and protocol errors
  const bad = await client.callTool({ name: 'recall', arguments: { question: 'Where do I live?', at: 'last spring' } });
  check(bad.isError === true && /ISO-8601/.test(text(bad)), `${label}: a malformed time is a tool error naming ISO-8601`,
    text(bad));
  const missing = await client.callTool({ name: 'facts', arguments: { entity: 'Nobody Anyone' } });
  check(!missing.isError && /knows nothing about Nobody Anyone/.test(text(missing)),
    `${label}: facts of an unknown entity says so`, text(missing));
  let code = 0;
  try { await client.callTool({ name: 'teleport', arguments: {} }); } catch (e) { code = e.code; }
  check(code === -32602, `${label}: an unknown tool is JSON-RPC error -32602`, code);
  code = 0;
  try { await client.readResource({ uri: 'engram://users/leo/diary' }); } catch (e) { code = e.code; }
  check(code === -32002, `${label}: an unknown resource is JSON-RPC error -32002`, code);
}

async function stdio() {
  const transport = new StdioClientTransport({
    command: env.ENGRAM_MCP_BIN,
    args: [...env.ENGRAM_MCP_ARGS.split('\n'), '--user', 'maya', '--agent', 'test-agent'],
    env: { PATH: env.PATH, ENGRAM_TOKEN: env.ENGRAM_MCP_USER_TOKEN, ENGRAM_ADMIN_TOKEN: env.ENGRAM_MCP_ADMIN_TOKEN },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'engram-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  check(client.getServerVersion()?.name === 'engram-mcp', 'stdio: initialize names engram-mcp');
  check(/recall/.test(client.getInstructions() || ''), 'stdio: the server gives instructions');
  await exercise(client, 'stdio', 'maya');

  // forget, with the admin token this server was given: another user's memory goes
  const ana = { messages: [{ role: 'user', content: 'I adopted a cat called Miso.', time: '2024-03-01T10:00:00Z' }],
    user: 'ana' };
  const stored = await client.callTool({ name: 'remember', arguments: ana });
  check(!stored.isError, 'stdio: remember for user ana', text(stored));
  const before = await client.callTool({ name: 'recall', arguments: { question: 'What is my cat called?', user: 'ana' } });
  check(/Miso/.test(text(before)), 'stdio: recall for ana finds Miso', text(before));
  const unconfirmed = await client.callTool({ name: 'forget', arguments: { user: 'ana' } });
  check(unconfirmed.isError === true && /confirm/.test(text(unconfirmed)), 'stdio: forget without confirm is refused',
    text(unconfirmed));
  const gone = await client.callTool({ name: 'forget', arguments: { user: 'ana', confirm: true } });
  check(!gone.isError && /Erased the memory of user ana/.test(text(gone)), 'stdio: forget erases ana', text(gone));
  const after = await client.callTool({ name: 'recall', arguments: { question: 'What is my cat called?', user: 'ana' } });
  check(!after.isError && !/Miso/.test(text(after)), 'stdio: after forget, recall for ana finds no Miso', text(after));
  const maya = await client.callTool({ name: 'facts', arguments: { relation: 'LIVES_IN' } });
  check(/Lisbon/.test(text(maya)), "stdio: maya's memory is untouched by ana's erasure", text(maya));
  await client.close();

  // the same binary without an admin token: forget says why it cannot
  const plain = new StdioClientTransport({
    command: env.ENGRAM_MCP_BIN, args: [...env.ENGRAM_MCP_ARGS.split('\n'), '--user', 'maya'],
    env: { PATH: env.PATH, ENGRAM_TOKEN: env.ENGRAM_MCP_USER_TOKEN }, stderr: 'inherit',
  });
  const c2 = new Client({ name: 'engram-mcp-test', version: '1.0.0' });
  await c2.connect(plain);
  const refused = await c2.callTool({ name: 'forget', arguments: { confirm: true } });
  check(refused.isError === true && /without an admin token/.test(text(refused)),
    'stdio: forget without an admin token is a tool error saying so', text(refused));
  await c2.close();
}

async function post(body, headers) {
  const res = await fetch(env.ENGRAM_MCP_URL, {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  });
  return { status: res.status, type: res.headers.get('content-type') || '', body: await res.text() };
}

async function http() {
  const url = new URL(env.ENGRAM_MCP_URL);
  const auth = (t) => ({ requestInit: { headers: { Authorization: `Bearer ${t}` } } });
  const client = new Client({ name: 'engram-mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, auth(env.ENGRAM_MCP_USER_TOKEN));
  await client.connect(transport);
  check(transport.protocolVersion === LATEST_PROTOCOL_VERSION,
    `http: negotiated the SDK's revision ${LATEST_PROTOCOL_VERSION}`, transport.protocolVersion);
  await exercise(client, 'http', 'leo');
  const refused = await client.callTool({ name: 'forget', arguments: { confirm: true } });
  check(refused.isError === true && /admin token/.test(text(refused)),
    'http: forget with a user-role token is a tool error', text(refused));
  await client.close();

  for (const [what, opts, status] of [['a wrong token', auth('not-a-token'), 401], ['no token', {}, 401],
    ["another tenant's token", auth(env.ENGRAM_MCP_OTHER_TOKEN), 403]]) {
    const c = new Client({ name: 'engram-mcp-test', version: '1.0.0' });
    let err = null;
    try { await c.connect(new StreamableHTTPClientTransport(url, opts)); } catch (e) { err = e; }
    check(err?.code === status, `http: ${what} is refused (${status})`, err);  // StreamableHTTPError: code = HTTP status
  }

  // the transport's rules, seen on the wire
  const user = { authorization: `Bearer ${env.ENGRAM_MCP_USER_TOKEN}` };
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const neg = await post(init, user);
  check(neg.status === 200 && JSON.parse(neg.body).result?.protocolVersion === '2025-11-25',
    'http: initialize asking 2026-07-28 is answered 2025-11-25', neg.body);
  const noAuth = await post(init, {});
  check(noAuth.status === 401 && JSON.parse(noAuth.body).error?.code === -32600, 'http: no token: 401 with a JSON-RPC error');
  const sse = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { ...user, accept: 'text/event-stream, application/json', 'mcp-protocol-version': '2025-11-25' });
  check(sse.status === 200 && sse.type.startsWith('text/event-stream') && /^event: message\ndata: \{.*"tools"/.test(sse.body),
    'http: a client asking for a stream first gets the response as an SSE event', sse.body.slice(0, 200));
  const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, user);
  check(note.status === 202 && note.body === '', 'http: a notification is 202 with no body');
  const parse = await fetch(env.ENGRAM_MCP_URL, { method: 'POST', body: '{oops',
    headers: { ...user, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });
  check(parse.status === 400 && (await parse.json()).error?.code === -32700, 'http: malformed JSON is 400 with -32700');
  const ver = await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, { ...user, 'mcp-protocol-version': '1999-01-01' });
  check(ver.status === 400, 'http: an unsupported MCP-Protocol-Version is 400', ver.body);
  const batch = await post([{ jsonrpc: '2.0', id: 4, method: 'ping' }], { ...user, 'mcp-protocol-version': '2025-11-25' });
  check(batch.status === 400 && /batches/.test(batch.body), 'http: a batch in 2025-11-25 is refused', batch.body);
  const batch0326 = await post([{ jsonrpc: '2.0', id: 5, method: 'ping' }, { jsonrpc: '2.0', id: 6, method: 'ping' }],
    { ...user, 'mcp-protocol-version': '2025-03-26' });
  check(batch0326.status === 200 && JSON.parse(batch0326.body).length === 2, 'http: a batch in 2025-03-26 is answered',
    batch0326.body);
  const get = await fetch(env.ENGRAM_MCP_URL, { headers: { ...user, accept: 'text/event-stream' } });
  check(get.status === 405, 'http: GET (no server stream) is 405', get.status);
  const evil = await post({ jsonrpc: '2.0', id: 7, method: 'ping' }, { ...user, origin: 'http://evil.example' });
  check(evil.status === 403, 'http: a foreign Origin is 403', evil.status);
}

try {
  await stdio();
  await http();
} catch (e) {
  check(false, 'no unexpected exception', e?.stack || e);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
