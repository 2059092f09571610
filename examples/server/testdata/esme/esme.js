'use strict';
// An ESME built on the npm smpp package, so that msgkit's SMPP server is
// tried with a client it shares no code with. It binds as a transceiver,
// submits what it reads on stdin, answers receipts, and binds again by
// itself when the connection ends (as after the server's unbind on a
// restart), sending again the parts that were not answered. It logs what
// it sees as JSON lines on stdout, which esme_npm_test.go reads; see
// README.md.

const smpp = require('smpp');
const readline = require('readline');

const opts = options(process.argv.slice(2));

let conns = 0; // connections made, numbering them in the log
let session = null; // the current one, bound or binding
let bound = false;
const queue = []; // parts to submit: {id, part, parts, pdu}
const inFlight = new Map(); // sequence_number -> part, on the current session
let closing = false;
// Statuses that ask for the submit_sm again later, as Kannel reads them:
// ESME_RSYSERR, ESME_RMSGQFUL, ESME_RTHROTTLED, ESME_RX_T_APPN.
const retried = new Set([0x08, 0x14, 0x58, 0x64]);

connect();

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (!line.trim()) {
    return;
  }
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    console.error(`esme.js: a line that is not JSON: ${line}`);
    process.exit(2);
  }
  for (const p of parts(msg)) {
    queue.push(p);
  }
  pump();
});
// The ESME lives as long as whoever started it.
const exit = () => {
  closing = true;
  process.exit(0);
};
rl.on('close', exit);
process.on('SIGTERM', exit);
process.on('SIGINT', exit);

function connect() {
  const conn = ++conns;
  const s = smpp.connect({ host: opts.host, port: opts.port });
  session = s;
  s.conn = conn;
  s.on('connect', () => {
    s.socket.setNoDelay(true);
    s.send(new smpp.PDU('bind_transceiver', { system_id: opts.systemID, password: opts.password, interface_version: 0x34 }), (pdu) => {
      log({ event: 'bind', conn, status: pdu.command_status });
      if (pdu.command_status === 0) {
        bound = true;
        pump();
      } else {
        s.close();
      }
    });
  });
  s.on('deliver_sm', (pdu) => {
    const sm = pdu.short_message || {};
    const text = typeof sm.message === 'string' ? sm.message : Buffer.isBuffer(sm.message) ? sm.message.toString('latin1') : null;
    log({
      event: 'deliver_sm', conn, esm_class: pdu.esm_class, source_addr: pdu.source_addr, destination_addr: pdu.destination_addr,
      data_coding: pdu.data_coding, text, receipted_message_id: pdu.receipted_message_id === undefined ? null : pdu.receipted_message_id,
      message_state: pdu.message_state === undefined ? null : pdu.message_state,
    });
    s.send(pdu.response());
  });
  s.on('enquire_link', (pdu) => {
    log({ event: 'enquire_link', conn });
    s.send(pdu.response());
  });
  s.on('unbind', (pdu) => {
    log({ event: 'unbind', conn });
    s.send(pdu.response());
    s.close();
  });
  s.on('generic_nack', (pdu) => log({ event: 'generic_nack', conn, status: pdu.command_status, seq: pdu.sequence_number }));
  s.on('error', (err) => console.error(`esme.js: connection ${conn}: ${err.message}`));
  s.on('close', () => {
    if (session !== s) {
      return;
    }
    log({ event: 'close', conn });
    bound = false;
    session = null;
    // What was not answered goes again, first, in its order.
    const again = [...inFlight.values()];
    inFlight.clear();
    queue.unshift(...again);
    if (!closing) {
      setTimeout(connect, opts.reconnectMs);
    }
  });
}

// pump submits what is queued while bound, at most opts.window unanswered.
function pump() {
  while (bound && session && queue.length > 0 && inFlight.size < opts.window) {
    const p = queue.shift();
    const s = session;
    const pdu = new smpp.PDU('submit_sm', Object.assign({}, p.fields));
    const sent = s.send(pdu, (resp) => {
      inFlight.delete(pdu.sequence_number);
      if (retried.has(resp.command_status)) {
        // The SMSC asks for it again later: after a pause, first.
        log({ event: 'submit_sm_retry', conn: s.conn, id: p.id, part: p.part, parts: p.parts, status: resp.command_status });
        setTimeout(() => {
          queue.unshift(p);
          pump();
        }, opts.reconnectMs);
        return;
      }
      log({ event: 'submit_sm_resp', conn: s.conn, id: p.id, part: p.part, parts: p.parts, status: resp.command_status, message_id: resp.message_id || '' });
      pump();
    });
    if (!sent) {
      queue.unshift(p);
      return;
    }
    inFlight.set(pdu.sequence_number, p);
  }
}

// parts turns a message of stdin into its submit_sm fields:
// {id, dest, text, coding: gsm|ucs2|auto, concat: udh|sar, ref}. gsm is
// data_coding 0 in GSM 03.38, a septet an octet; ucs2 is data_coding 8;
// auto leaves data_coding to the library (it picks 1, IA5, for GSM text).
// A text longer than one part is cut into parts of 153 septets or 67
// UTF-16 units (never inside an escape or a surrogate pair) tied by an
// 8-bit reference in the header (udh) or by the SAR parameters (sar).
function parts(msg) {
  const base = {
    source_addr_ton: 5, source_addr_npi: 0, source_addr: 'npm-esme',
    dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: msg.dest, registered_delivery: 1,
  };
  if (msg.coding === 'auto') {
    return [{ id: msg.id, part: 1, parts: 1, fields: Object.assign({ short_message: msg.text }, base) }];
  }
  const gsm = msg.coding === 'gsm';
  const encode = gsm ? (c) => smpp.encodings.ASCII.encode(c) : (c) => smpp.encodings.UCS2.encode(c);
  const single = gsm ? 160 : 140;
  const per = gsm ? 153 : 134;
  const chars = [...msg.text].map(encode);
  const total = chars.reduce((n, b) => n + b.length, 0);
  const dataCoding = gsm ? 0 : 8;
  if (total <= single) {
    return [{ id: msg.id, part: 1, parts: 1, fields: Object.assign({ data_coding: dataCoding, short_message: Buffer.concat(chars) }, base) }];
  }
  const chunks = [];
  let cur = [];
  let n = 0;
  for (const b of chars) {
    if (n + b.length > per) {
      chunks.push(Buffer.concat(cur));
      cur = [];
      n = 0;
    }
    cur.push(b);
    n += b.length;
  }
  chunks.push(Buffer.concat(cur));
  return chunks.map((c, i) => {
    const fields = Object.assign({ data_coding: dataCoding }, base);
    if (msg.concat === 'sar') {
      Object.assign(fields, { short_message: c, sar_msg_ref_num: msg.ref, sar_total_segments: chunks.length, sar_segment_seqnum: i + 1 });
    } else {
      const udh = Buffer.from([0x05, 0x00, 0x03, msg.ref & 0xff, chunks.length, i + 1]);
      Object.assign(fields, { esm_class: 0x40, short_message: Buffer.concat([udh, c]) });
    }
    return { id: msg.id, part: i + 1, parts: chunks.length, fields };
  });
}

function log(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function options(argv) {
  const o = { addr: '', systemID: '', password: '', window: 10, reconnectMs: 100 };
  const names = { addr: 'addr', 'system-id': 'systemID', password: 'password', window: 'window', 'reconnect-ms': 'reconnectMs' };
  for (const arg of argv) {
    const m = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (m && names[m[1]]) {
      o[names[m[1]]] = m[2];
    } else {
      console.error(`esme.js: unknown argument ${arg}`);
      process.exit(2);
    }
  }
  const hp = /^(.*):(\d+)$/.exec(o.addr);
  if (!hp) {
    console.error('esme.js: --addr=HOST:PORT');
    process.exit(2);
  }
  o.host = hp[1];
  o.port = Number(hp[2]);
  o.window = Number(o.window);
  o.reconnectMs = Number(o.reconnectMs);
  return o;
}
