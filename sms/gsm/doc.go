// Package gsm is the pure encoding of short messages as GSM networks carry
// them, after the standards that began as GSM 03.38 and 03.40 (now 3GPP TS
// 23.038 and 23.040): the default alphabet and its extension table,
// UCS-2, splitting a text or a WAP push into concatenated parts
// (SplitText, CountText, SplitWSI), and the SMS-DELIVER PDU a handset
// receives (EncodeDeliver, DecodeDeliver). It takes no context, does no
// I/O and keeps nothing: every function is a function of its arguments,
// so the bulk SMS gateway (package sms), the networks that carry its
// parts (sms/simnet, sms/smpp) and the route test system all count and
// cut a text alike.
//
// The name is the standards' family: what a newcomer looks for under
// "GSM" (septets, the escape table, user data headers, TPDUs) is here,
// and the rules of the bulk SMS interface (accounts, codes, reports) are
// not. Errors are *msgkit.Error of kind Invalid with this package's codes
// (CodeMissing, CodeNotInAlphabet, ...) and the field at fault; package
// sms answers each with the interface's submission code (sms.CodeOf).
//
// # Encoding and splitting
//
// Text is sent in the GSM 03.38 default alphabet (3GPP TS 23.038 6.2.1) or
// in UCS-2. The characters of the extension table — [ \ ] ^ { | } ~, form
// feed and € — are sent as the escape septet plus a code and cost two
// septets; so does the escape character U+001B itself (as escape + escape),
// as the bulk SMS interface says.
//
// One message carries 140 octets of user data: 160 septets or 70 UTF-16
// units. A longer text is split into concatenated parts, each led by a
// 6-octet user data header (3GPP TS 23.040 9.2.3.24.1, 8-bit reference),
// leaving 153 septets or 67 units. Parts are packed greedily, but an escape
// pair is never split (a part may hold 152 septets), nor is a UTF-16
// surrogate pair (a UCS-2 part may hold 66 units). More than 255 parts is
// CodeTooManyParts (the interface's RC_CONCAT_ERROR, 115).
//
// Choices where the standards are silent:
//   - DCSAuto chooses GSM when every character is in the alphabet and UCS
//     otherwise.
//   - With DCSGSM, 'ç' is sent as 'Ç' (0x09), as established gateways do,
//     and the part's text shows 'Ç'. Auto mode keeps 'ç' exact by choosing
//     UCS. Any other character outside the alphabet with DCSGSM is
//     CodeNotInAlphabet (102); nothing is transliterated silently.
//   - UCS-2 lengths are UTF-16 code units: a character outside the BMP
//     (most emoji) counts two, which is what handsets reassemble.
//   - An empty text is CodeMissing (110); text that is not valid UTF-8 is
//     CodeBadContent (109).
//   - A part's Text is what the phone shows; re-assembling the parts gives
//     back the customer's text (with ç as Ç under DCSGSM).
//   - The concatenation reference is chosen by the caller, so that splitting
//     stays a pure function.
//   - Parts are sized for an 8-bit reference (a 6-octet header: 153
//     septets, 67 units). A network that ties parts by a 16-bit reference
//     (a 7-octet header) needs SplitTextRef, CountTextRef and SplitWSIRef
//     with Ref16: 152 septets (the header ends on a septet boundary, so
//     packing adds no fill bits), 66 units, 127 octets of push. The
//     16-bit texts are walked character by character, not by the word.
//
// CountText gives the coding, the number of parts and the units without
// allocating, for pricing and quick checks; SplitText agrees with it, and
// SplitTextInto splits into a slice the caller reuses (the gateway's parts
// live on its stack). UCS-2 text is checked, counted and split in one pass:
// on amd64 with AVX2, 32 bytes an instruction (UTF-8 checked by nibble
// lookups as Keiser and Lemire do it), elsewhere eight bytes at a time (the
// build tag purego forces that path).
// `go run ./examples/splitbench -rounds 5` compares both with the node
// package split-sms on the texts of BenchmarkCountText and
// BenchmarkSplitText.
//
// InAlphabet and Septets tell a character's place in the alphabet;
// AppendCodes writes a text's septets one an octet (as SMPP data_coding 0
// carries them) and Pack packs them behind a user data header as the air
// interface does.
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
// the specifications followed and the choices made; DecodeWSI reads it back.
//
// # SMS-DELIVER
//
// EncodeDeliver writes the SMS-DELIVER PDU a handset receives (PDU mode of
// 3GPP TS 27.005: the service centre's address, then the TPDU of TS 23.040
// 9.2.2.1), and DecodeDeliver reads one back, checking every length, so
// that the simulated network can hand a test handset what a real one
// would and the route test system can read it. The comment at the top of
// deliver.go lists the standards followed and the choices made.
package gsm
