// Package pdu is the SMPP 3.4 codec: the PDUs an ESME and an SMSC
// exchange (binds and their responses, unbind, enquire_link, submit_sm,
// deliver_sm, data_sm, generic_nack, with the optional parameters met in
// practice), their command ids and command statuses. It keeps no
// connection and takes no context: the client (package sms/smpp) and the
// SMSC simulator (sms/smpp/smppsim) both speak through it, so the two
// sides of every test read and write the same octets. Its main type is
// pdu.PDU, as url.URL is net/url's.
//
// Append encodes a PDU; Decode reads one whose command_length octets are
// at hand, and Read reads one from a stream (any io.Reader). Every field
// is checked against what is left of the PDU before it is used and
// against the length the specification gives it (C-Octet Strings with
// their NUL, short_message at most 254 octets, optional parameters of a
// fixed length with exactly it); a command_length below 16 or above the
// connection's maximum is refused before any of the body is read or
// allocated. A DecodeError names the field and the command_status that
// answers it (generic_nack for a header the ESME cannot use).
//
// A Decoder reads with wider bounds where a side chooses to: an SMSC
// whose accounts have names and passwords longer than a bind's 15 and 8
// characters reads binds up to its own (package sms/smpp/smppserver does),
// while Append keeps SMPP 3.4's bounds, so the client never sends what a
// strict SMSC refuses.
//
// ParseTime and FormatTime read and write the SMPP time format (7.1.1) of
// schedule_delivery_time and validity_period: absolute times with their
// quarter-hour offset from UTC, in the years 2000 to 2099 (SMPP 3.4 names
// no century), and relative ones. Decode checks only a time's length, as
// its meaning depends on the receiver's clock.
//
// What a PDU's octets mean beyond their structure is the client's:
// delivery receipts (the text of SMPP 3.4 Appendix B, which the
// specification gives as an example and SMSCs vary, with the
// receipted_message_id and message_state parameters), the data codings a
// part is sent in, and how a status decides the part. So this package has
// no receipt parser: sms/smpp reads receipts and maps them to the bulk SMS
// events.
package pdu
