package pdu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// HeaderLen is the length of a PDU header: command_length, command_id,
// command_status and sequence_number, four octets each.
const HeaderLen = 16

// DefaultMaxPDU bounds a PDU read when a connection sets no bound: a
// header, the fixed fields and a message_payload of 64 KiB.
const DefaultMaxPDU = 70_000

// PDU is one SMPP 3.4 protocol data unit: the header's status and
// sequence number, and a body whose type says the command.
type PDU struct {
	Status Status
	Seq    uint32
	Body   Body
}

// Body is a command's body: *Bind, *BindResp, *SubmitSM, *SubmitSMResp,
// *DeliverSM, *DeliverSMResp, *DataSM, *DataSMResp, or one of the bodyless
// unbind, unbind_resp, enquire_link, enquire_link_resp and generic_nack
// (*Empty).
type Body interface {
	Command() CommandID
	appendTo(b []byte) ([]byte, error)
	decode(r *reader) error
}

// Address is a TON, an NPI and the address.
type Address struct {
	TON, NPI byte
	Addr     string
}

// BindMode is how an ESME binds.
type BindMode uint8

// The bind modes.
const (
	Transmitter BindMode = iota + 1
	Receiver
	Transceiver
)

var bindCommands = [...]CommandID{Transmitter: CmdBindTransmitter, Receiver: CmdBindReceiver, Transceiver: CmdBindTransceiver}

// String names the mode.
func (m BindMode) String() string {
	return [...]string{"", "transmitter", "receiver", "transceiver"}[min(int(m), 3)]
}

// InterfaceVersion is SMPP 3.4's interface_version.
const InterfaceVersion = 0x34

// Bind is bind_transmitter, bind_receiver or bind_transceiver.
type Bind struct {
	Mode       BindMode
	SystemID   string  // at most 15 characters (a Decoder may read more)
	Password   string  // at most 8 (a Decoder may read more)
	SystemType string  // at most 12
	Version    byte    // InterfaceVersion
	Range      Address // address_range: at most 40 characters
}

// BindResp answers a bind.
type BindResp struct {
	Mode     BindMode
	SystemID string
	TLVs     TLVs // sc_interface_version
}

// ShortMessage is the body shared by submit_sm and deliver_sm.
type ShortMessage struct {
	ServiceType          string  // at most 5
	Source, Dest         Address // addresses of at most 20 characters
	ESMClass             byte
	ProtocolID           byte
	Priority             byte
	ScheduleDeliveryTime string // "" or 16 characters
	ValidityPeriod       string // "" or 16 characters
	RegisteredDelivery   byte
	ReplaceIfPresent     byte
	DataCoding           byte
	DefaultMsgID         byte
	Message              []byte // short_message: at most 254 octets (else message_payload)
	TLVs                 TLVs
}

// SubmitSM is submit_sm.
type SubmitSM struct{ ShortMessage }

// DeliverSM is deliver_sm: a mobile-originated message or, with the
// receipt bits of ESMClass, a delivery receipt.
type DeliverSM struct{ ShortMessage }

// SubmitSMResp answers submit_sm with the SMSC's message id (none when
// the status is not ESME_ROK).
type SubmitSMResp struct{ MessageID string }

// DeliverSMResp answers deliver_sm; its message_id is unused.
type DeliverSMResp struct{ MessageID string }

// DataSM is data_sm: the message in message_payload.
type DataSM struct {
	ServiceType        string
	Source, Dest       Address // addresses of at most 64 characters
	ESMClass           byte
	RegisteredDelivery byte
	DataCoding         byte
	TLVs               TLVs
}

// DataSMResp answers data_sm.
type DataSMResp struct {
	MessageID string
	TLVs      TLVs
}

// Empty is the body of a command without one.
type Empty struct{ ID CommandID }

// The ESM class bits an ESME uses.
const (
	ESMClassUDHI          byte = 0x40 // short_message starts with a user data header
	ESMClassReceipt       byte = 0x04 // deliver_sm: SMSC delivery receipt
	ESMClassReceiptMask   byte = 0x3C // message type bits
	RegisteredDeliveryAll byte = 0x01 // a receipt on success and failure
)

func (b *Bind) Command() CommandID        { return bindCommands[b.validMode()] }
func (b *BindResp) Command() CommandID    { return bindCommands[b.validMode()] | RespBit }
func (*SubmitSM) Command() CommandID      { return CmdSubmitSM }
func (*DeliverSM) Command() CommandID     { return CmdDeliverSM }
func (*SubmitSMResp) Command() CommandID  { return CmdSubmitSMResp }
func (*DeliverSMResp) Command() CommandID { return CmdDeliverSMResp }
func (*DataSM) Command() CommandID        { return CmdDataSM }
func (*DataSMResp) Command() CommandID    { return CmdDataSMResp }
func (e *Empty) Command() CommandID       { return e.ID }
func (b *Bind) validMode() BindMode       { return clampMode(b.Mode) }
func (b *BindResp) validMode() BindMode   { return clampMode(b.Mode) }
func clampMode(m BindMode) BindMode {
	if m < Transmitter || m > Transceiver {
		return Transceiver
	}
	return m
}

// The most characters of each C-Octet String field, without its NUL
// (SMPP 3.4 chapter 4).
const (
	maxSystemID     = 15
	maxPassword     = 8
	maxSystemType   = 12
	maxRange        = 40
	maxServiceType  = 5
	maxAddr         = 20
	maxDataSMAddr   = 64
	maxTime         = 16
	MaxMessageID    = 64 // message_id, in the responses to submit_sm and deliver_sm and in receipts
	MaxShortMessage = 254
)

// EncodeError says which field could not be encoded.
type EncodeError struct {
	Command CommandID
	Field   string
	Reason  string
}

func (e *EncodeError) Error() string {
	return fmt.Sprintf("smpp: encoding %s: %s: %s", e.Command, e.Field, e.Reason)
}

// DecodeError says which field of a received PDU is wrong, and the status
// to answer it with (generic_nack or the response's command_status).
type DecodeError struct {
	Command CommandID
	Seq     uint32
	Field   string
	Reason  string
	Status  Status
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("smpp: decoding %s: %s: %s", e.Command, e.Field, e.Reason)
}

// Append encodes p after b.
func Append(b []byte, p PDU) ([]byte, error) {
	if p.Body == nil {
		return nil, &EncodeError{Field: "body", Reason: "no body"}
	}
	start := len(b)
	b = binary.BigEndian.AppendUint32(b, 0) // command_length, below
	b = binary.BigEndian.AppendUint32(b, uint32(p.Body.Command()))
	b = binary.BigEndian.AppendUint32(b, uint32(p.Status))
	b = binary.BigEndian.AppendUint32(b, p.Seq)
	if p.Status == ESME_ROK || !omitsBody(p.Body) {
		var err error
		if b, err = p.Body.appendTo(b); err != nil {
			return nil, err
		}
	}
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start))
	return b, nil
}

// Decode reads one whole PDU, b holding exactly its command_length
// octets, within SMPP 3.4's bounds.
func Decode(b []byte) (PDU, error) { return Decoder{}.Decode(b) }

// Decoder reads PDUs as Decode and Read do, but lets a bind's system_id
// and password be longer than SMPP 3.4 allows (15 and 8 characters): the
// bounds of a side that chooses to read more than it would write, as an
// SMSC whose accounts have longer names and passwords does. Its zero
// value is Decode's and Read's. Encoding keeps SMPP 3.4's bounds, so a
// bind read with wider ones may not encode.
type Decoder struct {
	// MaxSystemID and MaxPassword are the most characters (octets before
	// the NUL) a bind's system_id and password may have; a value below
	// SMPP 3.4's is SMPP 3.4's.
	MaxSystemID, MaxPassword int
}

// Decode reads one whole PDU, b holding exactly its command_length
// octets.
func (d Decoder) Decode(b []byte) (PDU, error) {
	if len(b) < HeaderLen {
		return PDU{}, &DecodeError{Field: "command_length", Reason: fmt.Sprintf("%d octets, a header has 16", len(b)), Status: ESME_RINVCMDLEN}
	}
	length := binary.BigEndian.Uint32(b)
	id := CommandID(binary.BigEndian.Uint32(b[4:]))
	p := PDU{Status: Status(binary.BigEndian.Uint32(b[8:])), Seq: binary.BigEndian.Uint32(b[12:])}
	if int64(length) != int64(len(b)) {
		return PDU{}, &DecodeError{Command: id, Seq: p.Seq, Field: "command_length", Reason: fmt.Sprintf("says %d octets, the PDU has %d", length, len(b)), Status: ESME_RINVCMDLEN}
	}
	body, ok := newBody(id)
	if !ok {
		return PDU{}, &DecodeError{Command: id, Seq: p.Seq, Field: "command_id", Reason: "not a command this ESME knows", Status: ESME_RINVCMDID}
	}
	r := &reader{b: b[HeaderLen:], cmd: id, seq: p.Seq, maxSystemID: max(d.MaxSystemID, maxSystemID), maxPassword: max(d.MaxPassword, maxPassword)}
	// A response with an error status may come without its body.
	if id.IsResponse() && p.Status != ESME_ROK && len(r.b) == 0 {
		p.Body = body
		return p, nil
	}
	if err := body.decode(r); err != nil {
		return PDU{}, err
	}
	if len(r.b) != 0 {
		return PDU{}, r.fail("command_length", fmt.Sprintf("%d octets after the body", len(r.b)), ESME_RINVCMDLEN)
	}
	p.Body = body
	return p, nil
}

// omitsBody reports whether body, answering with a non-zero
// command_status, goes without its body: bind_*_resp and submit_sm_resp
// return none then (SMPP 3.4 sections 4.1.2, 4.1.4, 4.1.6 and 4.4.2),
// when nothing is set in it.
func omitsBody(body Body) bool {
	switch b := body.(type) {
	case *BindResp:
		return b.SystemID == "" && len(b.TLVs) == 0
	case *SubmitSMResp:
		return b.MessageID == ""
	}
	return false
}

func newBody(id CommandID) (Body, bool) {
	switch id {
	case CmdBindTransmitter, CmdBindReceiver, CmdBindTransceiver:
		return &Bind{Mode: modeOf(id)}, true
	case CmdBindTransmitterResp, CmdBindReceiverResp, CmdBindTransceiverResp:
		return &BindResp{Mode: modeOf(id &^ RespBit)}, true
	case CmdSubmitSM:
		return &SubmitSM{}, true
	case CmdSubmitSMResp:
		return &SubmitSMResp{}, true
	case CmdDeliverSM:
		return &DeliverSM{}, true
	case CmdDeliverSMResp:
		return &DeliverSMResp{}, true
	case CmdDataSM:
		return &DataSM{}, true
	case CmdDataSMResp:
		return &DataSMResp{}, true
	case CmdUnbind, CmdUnbindResp, CmdEnquireLink, CmdEnquireLinkResp, CmdGenericNack:
		return &Empty{ID: id}, true
	}
	return nil, false
}

func modeOf(id CommandID) BindMode {
	switch id {
	case CmdBindTransmitter:
		return Transmitter
	case CmdBindReceiver:
		return Receiver
	}
	return Transceiver
}

// ErrTooLong is in the chain of a PDU refused for its command_length.
var ErrTooLong = errors.New("smpp: PDU longer than the connection's maximum")

// Read reads one PDU from r into buf (grown when too small, never beyond
// limit; 0 means DefaultMaxPDU) and decodes it. A command_length below 16
// or above limit is refused before anything of the body is read or
// allocated; the connection cannot go on after it. The PDU's slices
// point into the returned buffer, which the next Read reuses.
func Read(r io.Reader, buf []byte, limit int) (PDU, []byte, error) {
	return Decoder{}.Read(r, buf, limit)
}

// Read is the package's Read, decoding with d's bounds.
func (d Decoder) Read(r io.Reader, buf []byte, limit int) (PDU, []byte, error) {
	if limit <= 0 {
		limit = DefaultMaxPDU
	}
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return PDU{}, buf, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n < HeaderLen || int64(n) > int64(limit) {
		return PDU{}, buf, fmt.Errorf("%w: command_length %d (at least 16, at most %d)", ErrTooLong, n, limit)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n, max(int(n), 512))
	}
	buf = buf[:n]
	copy(buf, head[:])
	if _, err := io.ReadFull(r, buf[4:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return PDU{}, buf, err
	}
	p, err := d.Decode(buf)
	return p, buf, err
}

// reader reads a body's fields, each checked against what is left.
type reader struct {
	b   []byte
	cmd CommandID
	seq uint32
	// a bind's bounds: SMPP 3.4's, or a Decoder's wider ones
	maxSystemID, maxPassword int
}

func (r *reader) fail(field, reason string, st Status) error {
	return &DecodeError{Command: r.cmd, Seq: r.seq, Field: field, Reason: reason, Status: st}
}

func (r *reader) byte(field string) (byte, error) {
	if len(r.b) < 1 {
		return 0, r.fail(field, "missing", ESME_RINVCMDLEN)
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v, nil
}

// cstring reads a C-Octet String of at most max characters before its
// NUL.
func (r *reader) cstring(field string, max int) (string, error) {
	for i, c := range r.b {
		if c == 0 {
			if i > max {
				return "", r.fail(field, fmt.Sprintf("%d characters, at most %d", i, max), fieldStatus(field))
			}
			s := string(r.b[:i])
			r.b = r.b[i+1:]
			return s, nil
		}
		if i >= max {
			return "", r.fail(field, fmt.Sprintf("no NUL within %d characters", max+1), fieldStatus(field))
		}
	}
	return "", r.fail(field, "no NUL before the end", ESME_RINVCMDLEN)
}

// fieldStatus is the status that answers a bad field.
func fieldStatus(field string) Status {
	switch field {
	case "source_addr":
		return ESME_RINVSRCADR
	case "destination_addr":
		return ESME_RINVDSTADR
	case "system_id":
		return ESME_RINVSYSID
	case "password":
		return ESME_RINVPASWD
	case "system_type":
		return ESME_RINVSYSTYP
	case "service_type":
		return ESME_RINVSERTYP
	case "schedule_delivery_time":
		return ESME_RINVSCHED
	case "validity_period":
		return ESME_RINVEXPIRY
	case "message_id":
		return ESME_RINVMSGID
	}
	return ESME_RSYSERR
}

func (r *reader) address(ton, npi, addr string, max int) (Address, error) {
	var a Address
	var err error
	if a.TON, err = r.byte(ton); err != nil {
		return a, err
	}
	if a.NPI, err = r.byte(npi); err != nil {
		return a, err
	}
	a.Addr, err = r.cstring(addr, max)
	return a, err
}

// tlvs reads the optional parameters that end a body: each header
// complete, each length within what is left, each fixed length kept.
func (r *reader) tlvs() (TLVs, error) {
	var ts TLVs
	for len(r.b) > 0 {
		if len(r.b) < 4 {
			return nil, r.fail("optional parameters", fmt.Sprintf("%d octets, a parameter header has 4", len(r.b)), ESME_RINVOPTPARSTREAM)
		}
		tag, n := Tag(binary.BigEndian.Uint16(r.b)), int(binary.BigEndian.Uint16(r.b[2:]))
		if len(r.b)-4 < n {
			return nil, r.fail(fmt.Sprintf("optional parameter 0x%04x", uint16(tag)), fmt.Sprintf("length %d, %d octets left", n, len(r.b)-4), ESME_RINVOPTPARSTREAM)
		}
		if want, fixed := fixedLen[tag]; fixed && n != want {
			return nil, r.fail(fmt.Sprintf("optional parameter 0x%04x", uint16(tag)), fmt.Sprintf("length %d, it has %d", n, want), ESME_RINVPARLEN)
		}
		ts = append(ts, TLV{Tag: tag, Value: r.b[4 : 4+n : 4+n]})
		r.b = r.b[4+n:]
	}
	return ts, nil
}

// writer helpers: each checks its field's bound.

func appendCString(b []byte, cmd CommandID, field, s string, max int) ([]byte, error) {
	if len(s) > max {
		return nil, &EncodeError{Command: cmd, Field: field, Reason: fmt.Sprintf("%d characters, at most %d", len(s), max)}
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return nil, &EncodeError{Command: cmd, Field: field, Reason: "contains NUL"}
		}
	}
	return append(append(b, s...), 0), nil
}

func appendAddress(b []byte, cmd CommandID, field string, a Address, max int) ([]byte, error) {
	return appendCString(append(b, a.TON, a.NPI), cmd, field, a.Addr, max)
}

func appendTime(b []byte, cmd CommandID, field, s string) ([]byte, error) {
	if s != "" && len(s) != maxTime {
		return nil, &EncodeError{Command: cmd, Field: field, Reason: "a time is empty or 16 characters (YYMMDDhhmmsstnnp)"}
	}
	return appendCString(b, cmd, field, s, maxTime)
}

func (b *Bind) appendTo(out []byte) ([]byte, error) {
	cmd := b.Command()
	var err error
	if out, err = appendCString(out, cmd, "system_id", b.SystemID, maxSystemID); err != nil {
		return nil, err
	}
	if out, err = appendCString(out, cmd, "password", b.Password, maxPassword); err != nil {
		return nil, err
	}
	if out, err = appendCString(out, cmd, "system_type", b.SystemType, maxSystemType); err != nil {
		return nil, err
	}
	out = append(out, b.Version)
	return appendAddress(out, cmd, "address_range", b.Range, maxRange)
}

func (b *Bind) decode(r *reader) error {
	var err error
	if b.SystemID, err = r.cstring("system_id", r.maxSystemID); err != nil {
		return err
	}
	if b.Password, err = r.cstring("password", r.maxPassword); err != nil {
		return err
	}
	if b.SystemType, err = r.cstring("system_type", maxSystemType); err != nil {
		return err
	}
	if b.Version, err = r.byte("interface_version"); err != nil {
		return err
	}
	b.Range, err = r.address("addr_ton", "addr_npi", "address_range", maxRange)
	return err
}

func (b *BindResp) appendTo(out []byte) ([]byte, error) {
	out, err := appendCString(out, b.Command(), "system_id", b.SystemID, maxSystemID)
	if err != nil {
		return nil, err
	}
	return appendTLVs(out, b.Command(), b.TLVs)
}

func (b *BindResp) decode(r *reader) error {
	var err error
	if b.SystemID, err = r.cstring("system_id", maxSystemID); err != nil {
		return err
	}
	b.TLVs, err = r.tlvs()
	return err
}

func (m *ShortMessage) appendTo(out []byte, cmd CommandID) ([]byte, error) {
	var err error
	if out, err = appendCString(out, cmd, "service_type", m.ServiceType, maxServiceType); err != nil {
		return nil, err
	}
	if out, err = appendAddress(out, cmd, "source_addr", m.Source, maxAddr); err != nil {
		return nil, err
	}
	if out, err = appendAddress(out, cmd, "destination_addr", m.Dest, maxAddr); err != nil {
		return nil, err
	}
	out = append(out, m.ESMClass, m.ProtocolID, m.Priority)
	if out, err = appendTime(out, cmd, "schedule_delivery_time", m.ScheduleDeliveryTime); err != nil {
		return nil, err
	}
	if out, err = appendTime(out, cmd, "validity_period", m.ValidityPeriod); err != nil {
		return nil, err
	}
	if len(m.Message) > MaxShortMessage {
		return nil, &EncodeError{Command: cmd, Field: "short_message", Reason: fmt.Sprintf("%d octets, at most %d (longer ones go in message_payload)", len(m.Message), MaxShortMessage)}
	}
	out = append(out, m.RegisteredDelivery, m.ReplaceIfPresent, m.DataCoding, m.DefaultMsgID, byte(len(m.Message)))
	out = append(out, m.Message...)
	return appendTLVs(out, cmd, m.TLVs)
}

func (m *ShortMessage) decode(r *reader) error {
	var err error
	if m.ServiceType, err = r.cstring("service_type", maxServiceType); err != nil {
		return err
	}
	if m.Source, err = r.address("source_addr_ton", "source_addr_npi", "source_addr", maxAddr); err != nil {
		return err
	}
	if m.Dest, err = r.address("dest_addr_ton", "dest_addr_npi", "destination_addr", maxAddr); err != nil {
		return err
	}
	for _, f := range []struct {
		dst  *byte
		name string
	}{{&m.ESMClass, "esm_class"}, {&m.ProtocolID, "protocol_id"}, {&m.Priority, "priority_flag"}} {
		if *f.dst, err = r.byte(f.name); err != nil {
			return err
		}
	}
	if m.ScheduleDeliveryTime, err = r.time("schedule_delivery_time"); err != nil {
		return err
	}
	if m.ValidityPeriod, err = r.time("validity_period"); err != nil {
		return err
	}
	for _, f := range []struct {
		dst  *byte
		name string
	}{{&m.RegisteredDelivery, "registered_delivery"}, {&m.ReplaceIfPresent, "replace_if_present_flag"}, {&m.DataCoding, "data_coding"}, {&m.DefaultMsgID, "sm_default_msg_id"}} {
		if *f.dst, err = r.byte(f.name); err != nil {
			return err
		}
	}
	n, err := r.byte("sm_length")
	if err != nil {
		return err
	}
	if int(n) > MaxShortMessage {
		return r.fail("sm_length", fmt.Sprintf("%d, at most %d", n, MaxShortMessage), ESME_RINVMSGLEN)
	}
	if len(r.b) < int(n) {
		return r.fail("short_message", fmt.Sprintf("sm_length %d, %d octets left", n, len(r.b)), ESME_RINVMSGLEN)
	}
	m.Message = r.b[:n:n]
	r.b = r.b[n:]
	m.TLVs, err = r.tlvs()
	return err
}

func (r *reader) time(field string) (string, error) {
	s, err := r.cstring(field, maxTime)
	if err == nil && s != "" && len(s) != maxTime {
		return "", r.fail(field, "a time is empty or 16 characters", fieldStatus(field))
	}
	return s, err
}

func (s *SubmitSM) appendTo(b []byte) ([]byte, error) { return s.ShortMessage.appendTo(b, CmdSubmitSM) }
func (s *SubmitSM) decode(r *reader) error            { return s.ShortMessage.decode(r) }
func (d *DeliverSM) appendTo(b []byte) ([]byte, error) {
	return d.ShortMessage.appendTo(b, CmdDeliverSM)
}
func (d *DeliverSM) decode(r *reader) error { return d.ShortMessage.decode(r) }

func (s *SubmitSMResp) appendTo(b []byte) ([]byte, error) {
	return appendCString(b, CmdSubmitSMResp, "message_id", s.MessageID, MaxMessageID)
}

func (s *SubmitSMResp) decode(r *reader) (err error) {
	s.MessageID, err = r.cstring("message_id", MaxMessageID)
	return err
}

func (d *DeliverSMResp) appendTo(b []byte) ([]byte, error) {
	return appendCString(b, CmdDeliverSMResp, "message_id", d.MessageID, MaxMessageID)
}

func (d *DeliverSMResp) decode(r *reader) (err error) {
	d.MessageID, err = r.cstring("message_id", MaxMessageID)
	return err
}

func (d *DataSM) appendTo(out []byte) ([]byte, error) {
	var err error
	if out, err = appendCString(out, CmdDataSM, "service_type", d.ServiceType, maxServiceType); err != nil {
		return nil, err
	}
	if out, err = appendAddress(out, CmdDataSM, "source_addr", d.Source, maxDataSMAddr); err != nil {
		return nil, err
	}
	if out, err = appendAddress(out, CmdDataSM, "destination_addr", d.Dest, maxDataSMAddr); err != nil {
		return nil, err
	}
	out = append(out, d.ESMClass, d.RegisteredDelivery, d.DataCoding)
	return appendTLVs(out, CmdDataSM, d.TLVs)
}

func (d *DataSM) decode(r *reader) error {
	var err error
	if d.ServiceType, err = r.cstring("service_type", maxServiceType); err != nil {
		return err
	}
	if d.Source, err = r.address("source_addr_ton", "source_addr_npi", "source_addr", maxDataSMAddr); err != nil {
		return err
	}
	if d.Dest, err = r.address("dest_addr_ton", "dest_addr_npi", "destination_addr", maxDataSMAddr); err != nil {
		return err
	}
	for _, f := range []struct {
		dst  *byte
		name string
	}{{&d.ESMClass, "esm_class"}, {&d.RegisteredDelivery, "registered_delivery"}, {&d.DataCoding, "data_coding"}} {
		if *f.dst, err = r.byte(f.name); err != nil {
			return err
		}
	}
	d.TLVs, err = r.tlvs()
	return err
}

func (d *DataSMResp) appendTo(out []byte) ([]byte, error) {
	out, err := appendCString(out, CmdDataSMResp, "message_id", d.MessageID, MaxMessageID)
	if err != nil {
		return nil, err
	}
	return appendTLVs(out, CmdDataSMResp, d.TLVs)
}

func (d *DataSMResp) decode(r *reader) (err error) {
	if d.MessageID, err = r.cstring("message_id", MaxMessageID); err != nil {
		return err
	}
	d.TLVs, err = r.tlvs()
	return err
}

func (e *Empty) appendTo(b []byte) ([]byte, error) { return b, nil }
func (e *Empty) decode(*reader) error              { return nil }
