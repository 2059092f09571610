'use strict';
// An SMSC built on the npm smpp package, so that msgkit's ESME can be
// tried against an implementation of SMPP it does not share code with.
// It logs what it sees as JSON lines on stdout, which interop_test.go
// reads; see README.md for the options and the lines.

const smpp = require('smpp');

const opts = options(process.argv.slice(2), process.env);

// The library turns short_message into text as it decodes a PDU; keep
// the octets too, since what the ESME put on the wire is what is tested.
const decodeMessage = smpp.filters.message.decode;
smpp.filters.message.decode = function (value, skipUdh) {
  if (Buffer.isBuffer(value) && value === this.short_message) {
    this.raw_short_message = value;
  }
  return decodeMessage.call(this, value, skipUdh);
};

let conns = 0; // sessions accepted, numbering them in the log
let submits = 0; // submit_sm received, counting towards --drop-after
let lastID = 0x5eed00; // message ids are this counter, formatted
const receivers = new Set(); // bound sessions that take receipts
const waiting = []; // receipts no session can take now

const server = smpp.createServer((session) => {
  session.conn = ++conns;
  // Responses go out as they are written. With Nagle's algorithm the
  // kernel would hold some back, and a drop (--drop-after) would then
  // lose answers the SMSC gave: parts taken that the ESME must send again.
  // That happens with real SMSCs, but here the log has to say which parts
  // the ESME heard answered.
  session.socket.setNoDelay(true);
  session.unacked = new Set(); // receipts sent on it and not answered
  // A dropped session may still hand over PDUs it had buffered: they
  // count as never received.
  const on = (command, handle) => session.on(command, (pdu) => session.dropped || handle(pdu));
  for (const command of ['bind_transceiver', 'bind_transmitter', 'bind_receiver']) {
    on(command, (pdu) => bind(session, command, pdu));
  }
  on('submit_sm', (pdu) => submit(session, pdu));
  on('enquire_link', (pdu) => {
    log({ event: 'enquire_link', conn: session.conn });
    session.send(pdu.response());
  });
  on('unbind', (pdu) => {
    log({ event: 'unbind', conn: session.conn });
    session.send(pdu.response());
    session.close();
  });
  on('unknown', (pdu) => session.send(pdu.response())); // generic_nack
  session.on('error', (err) => console.error(`smsc.js: connection ${session.conn}: ${err.message}`));
  session.on('close', () => closed(session));
});

server.on('error', (err) => {
  console.error(`smsc.js: ${err.message}`);
  process.exit(1);
});
server.listen(opts.port, '127.0.0.1', () => log({ port: server.address().port }));

// The SMSC lives as long as whoever started it: it ends on a signal or
// when its stdin closes (the parent went away).
const exit = () => process.exit(0);
process.on('SIGTERM', exit);
process.on('SIGINT', exit);
process.stdin.on('end', exit);
process.stdin.resume();

function bind(session, command, pdu) {
  let status = smpp.ESME_ROK;
  if (session.mode) {
    status = smpp.ESME_RALYBND;
  } else if (pdu.system_id !== opts.systemID || pdu.password !== opts.password) {
    status = smpp.ESME_RBINDFAIL;
  }
  session.send(pdu.response({ command_status: status, system_id: 'node-smsc' }));
  log({ event: 'bind', conn: session.conn, command, system_id: pdu.system_id, status });
  if (status === smpp.ESME_RBINDFAIL) {
    session.close();
    return;
  }
  if (status !== smpp.ESME_ROK) {
    return;
  }
  session.mode = command.slice('bind_'.length);
  // The SMSC checks the link too, as many do right after a bind.
  session.enquire_link((resp) => log({ event: 'enquire_link_resp', conn: session.conn, status: resp.command_status }));
  if (session.mode !== 'transmitter') {
    receivers.add(session);
    waiting.splice(0).forEach((r) => offer(r));
  }
}

function submit(session, pdu) {
  if (session.mode !== 'transceiver' && session.mode !== 'transmitter') {
    session.send(pdu.response({ command_status: smpp.ESME_RINVBNDSTS }));
    return;
  }
  const sm = describe(session, pdu);
  if (++submits === opts.dropAfter) {
    // The connection breaks with this submit_sm and those after it in
    // flight: the ESME has to find out which parts were taken.
    session.dropped = true;
    receivers.delete(session);
    log({ event: 'drop', ...sm });
    session.destroy();
    return;
  }
  const id = messageID(++lastID);
  session.send(pdu.response({ message_id: id }));
  log({ event: 'submit_sm', ...sm, message_id: id });
  if (pdu.registered_delivery & 1) {
    offer(receipt(pdu, sm.text, id), session);
  }
}

// describe is what the log says of a submit_sm.
function describe(session, pdu) {
  const sm = pdu.short_message || {};
  return {
    conn: session.conn,
    seq: pdu.sequence_number,
    source_addr: pdu.source_addr,
    source_addr_ton: pdu.source_addr_ton,
    source_addr_npi: pdu.source_addr_npi,
    destination_addr: pdu.destination_addr,
    dest_addr_ton: pdu.dest_addr_ton,
    dest_addr_npi: pdu.dest_addr_npi,
    esm_class: pdu.esm_class,
    data_coding: pdu.data_coding,
    registered_delivery: pdu.registered_delivery,
    short_message: pdu.raw_short_message ? pdu.raw_short_message.toString('hex') : '',
    // How the library reads it: the header's elements and the text.
    udh: (sm.udh || []).map((ie) => ie.toString('hex')),
    text: typeof sm.message === 'string' ? sm.message : undefined,
    sar_msg_ref_num: pdu.sar_msg_ref_num,
    sar_total_segments: pdu.sar_total_segments,
    sar_segment_seqnum: pdu.sar_segment_seqnum,
  };
}

function messageID(n) {
  // Zero-padded upper-case hex is common; so are plain decimal ids.
  return opts.idFormat === 'hex' ? n.toString(16).toUpperCase().padStart(10, '0') : String(n);
}

// receipt is a delivery receipt of the message id, as Appendix B of
// SMPP 3.4 shapes its text, with the parameters that say the same.
function receipt(pdu, text, id) {
  const now = smscDate(new Date());
  const excerpt = (text || '').slice(0, 20).replace(/[^ -~]/g, '.');
  return {
    id,
    tries: 0,
    pdu: {
      source_addr_ton: pdu.dest_addr_ton,
      source_addr_npi: pdu.dest_addr_npi,
      source_addr: pdu.destination_addr,
      dest_addr_ton: pdu.source_addr_ton,
      dest_addr_npi: pdu.source_addr_npi,
      destination_addr: pdu.source_addr,
      esm_class: smpp.ESM_CLASS.MC_DELIVERY_RECEIPT,
      // A string, so that the library picks the data_coding as it would
      // for any SMSC written with it.
      short_message: `id:${id} sub:001 dlvrd:001 submit date:${now} done date:${now} stat:DELIVRD err:000 text:${excerpt}`,
      receipted_message_id: id,
      message_state: smpp.MESSAGE_STATE.DELIVERED,
    },
  };
}

// offer sends a receipt on a session that takes receipts, the preferred
// one if it can, and keeps it until the ESME answers ESME_ROK: a
// receipt of a session that closes first, or answered with an error, is
// offered again, as SMSCs do.
function offer(r, preferred) {
  const session = receivers.has(preferred) ? preferred : receivers.values().next().value;
  if (!session) {
    waiting.push(r);
    return;
  }
  session.unacked.add(r);
  session.deliver_sm(r.pdu, (resp) => {
    session.unacked.delete(r);
    log({ event: 'deliver_sm_resp', conn: session.conn, message_id: r.id, status: resp.command_status });
    if (resp.command_status !== smpp.ESME_ROK && ++r.tries < 5) {
      setTimeout(() => offer(r), 200);
    }
  });
}

function closed(session) {
  receivers.delete(session);
  log({ event: 'close', conn: session.conn });
  for (const r of session.unacked) {
    offer(r);
  }
  session.unacked.clear();
}

// smscDate is the receipt's YYMMDDhhmm, in UTC.
function smscDate(d) {
  return d.toISOString().replace(/[-T:]/g, '').slice(2, 12);
}

function log(ev) {
  process.stdout.write(JSON.stringify(ev) + '\n');
}

// options reads --name=value arguments (a bare number is the port),
// falling back on SMSC_* environment variables.
function options(argv, env) {
  const o = {
    port: env.SMSC_PORT || '0',
    systemID: env.SMSC_SYSTEM_ID || 'msgkit',
    password: env.SMSC_PASSWORD || 'secret',
    idFormat: env.SMSC_ID_FORMAT || 'hex',
    dropAfter: env.SMSC_DROP_AFTER || '0',
  };
  const names = { port: 'port', 'system-id': 'systemID', password: 'password', 'id-format': 'idFormat', 'drop-after': 'dropAfter' };
  for (const arg of argv) {
    const m = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (/^\d+$/.test(arg)) {
      o.port = arg;
    } else if (m && names[m[1]]) {
      o[names[m[1]]] = m[2];
    } else {
      console.error(`smsc.js: unknown argument ${arg}`);
      process.exit(2);
    }
  }
  if (o.idFormat !== 'hex' && o.idFormat !== 'dec') {
    console.error('smsc.js: --id-format is hex or dec');
    process.exit(2);
  }
  o.port = Number(o.port);
  o.dropAfter = Number(o.dropAfter); // 0: never
  return o;
}
