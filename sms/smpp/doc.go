// Package smpp speaks SMPP 3.4 as an ESME: the PDU codec an ESME needs
// (binds and their responses, unbind, enquire_link, submit_sm, deliver_sm,
// data_sm, generic_nack, with the optional parameters met in practice)
// and a client that implements sms.Upstream over one or more binds.
//
// # Codec
//
// Append encodes a PDU; Decode reads one whose command_length octets are
// at hand, and Read reads one from a stream. Every field is checked
// against what is left of the PDU before it is used and against the
// length the specification gives it (C-Octet Strings with their NUL,
// short_message at most 254 octets, optional parameters of a fixed length
// with exactly it); a command_length below 16 or above the connection's
// maximum is refused before any of the body is read or allocated. A
// DecodeError names the field and the command_status that answers it
// (generic_nack for a header the ESME cannot use).
package smpp
