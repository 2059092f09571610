// Package sms is the bulk SMS domain of msgkit. This part of it is pure: it
// turns a text or a WAP push into the physical messages a network carries,
// validates senders and receivers, and holds the vocabulary of submission
// error codes, delivery report events, masks and error codes of the bulk SMS
// interface (document 3, section A). Nothing here does I/O.
//
// # Encoding and splitting
//
// Text is sent in the GSM 03.38 default alphabet (3GPP TS 23.038 6.2.1) or
// in UCS-2. The characters of the extension table — [ \ ] ^ { | } ~, form
// feed and € — are sent as the escape septet plus a code and cost two
// septets; so does the escape character U+001B itself (as escape + escape),
// as document 3 section 4.1 says.
//
// One message carries 140 octets of user data: 160 septets or 70 UTF-16
// units. A longer text is split into concatenated parts, each led by a
// 6-octet user data header (3GPP TS 23.040 9.2.3.24.1, 8-bit reference),
// leaving 153 septets or 67 units. Parts are packed greedily, but an escape
// pair is never split (a part may hold 152 septets), nor is a UTF-16
// surrogate pair (a UCS-2 part may hold 66 units). More than 255 parts is
// RC_CONCAT_ERROR (115).
//
// Choices where the interface is silent:
//   - dcs is case-insensitive; an empty dcs or "auto" chooses GSM when every
//     character is in the alphabet and UCS otherwise.
//   - With dcs GSM, 'ç' is sent as 'Ç' (0x09), as established gateways do,
//     and the part's text shows 'Ç'. Auto mode keeps 'ç' exact by choosing
//     UCS. Any other character outside the alphabet with dcs GSM is
//     RC_ENCODING_ERROR (102); nothing is transliterated silently.
//   - UCS-2 lengths are UTF-16 code units: a character outside the BMP
//     (most emoji) counts two, which is what handsets reassemble.
//   - An empty text is RC_MISSING_MANDATORY_PARAMETER (110); text that is
//     not valid UTF-8 is RC_BAD_CONTENT_FORMAT (109).
//   - A part's Text is what the phone shows; re-assembling the parts gives
//     back the customer's text (with ç as Ç under dcs GSM).
//   - The concatenation reference is chosen by the caller, so that splitting
//     stays a pure function.
//
// CountText gives the coding, the number of parts and the units without
// allocating, for pricing and quick checks; SplitText agrees with it.
//
// # WAP push
//
// A message of type wsi is a WAP Push Service Indication: SplitWSI encodes
// <si><indication href="url">title</indication></si> in WBXML 1.2
// (WAP-192-WBXML) with the SI 1.0 tokens (WAP-167-ServiceInd), wraps it in
// a connectionless WSP Push PDU (WAP-230-WSP) with Content-Type
// application/vnd.wap.sic and X-Wap-Application-Id wml.ua, and carries it in
// 8-bit parts addressed to port 2948 from port 9200 (WAP-259-WDP; 3GPP TS
// 23.040 9.2.3.24.4 application port addressing, 9.2.3.24.1 concatenation).
// One part holds 133 octets after its 7-octet header; concatenated parts
// hold 128 after a 12-octet header. The comment at the top of wsi.go lists
// the sections followed and the choices made; DecodeWSI reads it back.
//
// # Senders and receivers
//
// An alphanumeric sender holds digits, ASCII letters, space and
// ! " # % & ' ( ) * + , - . / : ; < = > ? (section 4.1), at most 11 of them
// (the 3GPP TS 23.040 limit, since section 8 leaves it open) and is not
// blank. A sender of digits only, optionally led by '+', is numeric with at
// most 15 digits. Violations are RC_INVALID_SENDER (107); a missing sender
// is 110.
//
// A receiver is digits with the country code, optionally led by '+', with
// no spaces or national prefixes, and must be a valid number by
// libphonenumber's metadata; otherwise RC_BAD_PARAMETER_VALUE (112). It is
// normalised to E.164.
//
// # Delivery reports
//
// A DLRMask is the sum of event bits (section 6.1); 0 (no reports) to 31 are
// valid and 19 (every final event) is recommended. DLRError holds the codes
// of section 7.2 with their group. Codes 80 to 90 follow the MAP
// absent-subscriber diagnostics (3GPP TS 29.002) offset by 80, which matches
// the grouping of section 7.2; codes 61 to 75, which section 7.2 names only
// as a group, carry the group's text. Temporary reports whether a failure
// leaves a part BUFFERED for a later attempt (absent subscriber, memory
// full, network faults) rather than UNDELIVERED.
package sms
