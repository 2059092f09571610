package gsm

// WAP Push Service Indication (bulk SMS message type "wsi").
//
// Standards followed:
//
//   - WAP-167-ServiceInd-20010731-a (Service Indication): the SI document
//     <si><indication href="…">title</indication></si> (§8, DTD) and its
//     WBXML tokens: tag tokens si 0x05, indication 0x06 (§9.3.1); attribute
//     start tokens href 0x0B, href="http://" 0x0C, href="http://www." 0x0D,
//     href="https://" 0x0E, href="https://www." 0x0F (§9.3.2); attribute
//     value tokens ".com/" 0x85, ".edu/" 0x86, ".net/" 0x87, ".org/" 0x88
//     (§9.3.3); the annotated encoding example (§10).
//   - WAP-192-WBXML-20010725-a (Binary XML Content Format), WBXML 1.2: the
//     header version 0x02, public identifier 0x05 for
//     "-//WAPFORUM//DTD SI 1.0//EN", charset as an IANA MIBenum (UTF-8 =
//     0x6A), string table length 0 (§5.4-5.7); mb_u_int32 (§5.1); the tag
//     bits 0x80 (has attributes) and 0x40 (has content) (§5.8.2); the global
//     tokens END 0x01 and STR_I 0x03 (§5.8.4).
//   - WAP-230-WSP-20010705-a (Wireless Session Protocol): the connectionless
//     Push PDU TID, Type 0x06, HeadersLen (uintvar), ContentType, Headers,
//     Data (§8.2.4.1); uintvar (§8.1.2); header encoding with well-known
//     short integers (§8.4); Content-Type application/vnd.wap.sic = 0x2E
//     (Appendix A, content type assignments); X-Wap-Application-Id = 0x2F
//     (Appendix A, header field name assignments) with the push application
//     id x-wap-application:wml.ua = 0x02 (WINA/OMNA push application id
//     registry, WAP-189-PushOTA).
//   - WAP-259-WDP-20010614-a (Wireless Datagram Protocol): WDP over GSM SMS
//     carries the datagram in 8-bit short messages whose user data header
//     addresses ports; destination port 2948 (WSP connectionless push),
//     source port 9200 (WSP connectionless session service).
//   - 3GPP TS 23.040 §9.2.3.24.1 (concatenated short messages, 8-bit
//     reference, IEI 0x00) and §9.2.3.24.4 (application port addressing
//     scheme, 16-bit address, IEI 0x05).
//
// Choices where the standards leave room:
//
//   - The indication carries href and the title only, as typical push proxy
//     gateways send it. action is omitted: the DTD default is signal-medium,
//     so spelling it out costs an octet and changes nothing. si-id is omitted
//     (it defaults to href) and so are created and si-expires: they need a
//     clock, and the splitter is a pure function.
//   - href is tokenized as WAP-167 allows: the longest matching start token
//     (case-sensitive, so the decoded value is byte-identical to the
//     request), then every occurrence of .com/ .edu/ .net/ .org/ becomes its
//     value token, the text between them an inline string. Each replacement
//     saves at least two octets, so replacing all of them is never worse.
//   - url must be an absolute http or https URL with a host, in valid UTF-8
//     (non-ASCII is kept as sent), without white space or control
//     characters; an empty url is a missing parameter.
//   - The title is mandatory and must not be blank: phones (Windows Mobile,
//     for one) discard an SI whose indication has no text without telling
//     the user, so the customer would pay for nothing. It must be valid
//     UTF-8 without control characters (tab and line breaks included) or
//     the non-characters U+FFFE and U+FFFF, which XML does not allow. Both
//     rules keep NUL, the inline string terminator, out of the WBXML.
//   - When the content needs more than MaxParts parts, RC_CONCAT_ERROR names
//     url if the url alone is too long, title otherwise.
//   - The WSP transaction id is the concatenation reference: a connectionless
//     push expects no reply, so any value is valid, and this one differs
//     between messages for whoever correlates on it.
//   - The WSP headers are Content-Type application/vnd.wap.sic and
//     X-Wap-Application-Id x-wap-application:wml.ua (0x82), the browser's
//     SI handler. No charset parameter: WBXML carries its own.
//   - A single part carries only the port addressing IE (7-octet UDH, 133
//     octets of payload); when more are needed every part carries ports and
//     concatenation (12-octet UDH, 128 octets each).

import (
	"bytes"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
)

// WDP ports for WAP push over SMS (WAP-259-WDP).
const (
	WAPPushPort    uint16 = 2948 // destination: WSP connectionless push
	WAPSessionPort uint16 = 9200 // source: WSP connectionless session service
)

// WSP (WAP-230) values of the push envelope.
const (
	wspPDUPush         = 0x06
	wspContentTypeSIC  = 0x2E // application/vnd.wap.sic
	wspHeaderAppID     = 0x2F // X-Wap-Application-Id
	wspAppIDWMLUA      = 0x02 // x-wap-application:wml.ua
	wspShortIntegerBit = 0x80 // Short-integer = OCTET | 0x80
	wspSICMediaType    = "application/vnd.wap.sic"
)

// WBXML (WAP-192) values.
const (
	wbxmlVersion12  = 0x02
	wbxmlPublicIDSI = 0x05 // "-//WAPFORUM//DTD SI 1.0//EN"
	wbxmlUTF8       = 0x6A // IANA MIBenum 106
	wbxmlSwitchPage = 0x00
	wbxmlEnd        = 0x01
	wbxmlEntity     = 0x02
	wbxmlStrI       = 0x03
	wbxmlLiteral    = 0x04
	wbxmlExtI0      = 0x40
	wbxmlExtI2      = 0x42
	wbxmlPI         = 0x43
	wbxmlExtT0      = 0x80
	wbxmlExtT2      = 0x82
	wbxmlStrT       = 0x83
	wbxmlExt0       = 0xC0
	wbxmlExt2       = 0xC2
	wbxmlOpaque     = 0xC3
	wbxmlHasAttrs   = 0x80
	wbxmlHasContent = 0x40
	wbxmlTagMask    = 0x3F

	siPublicID = "-//WAPFORUM//DTD SI 1.0//EN"
)

// SI tokens (WAP-167 §9.3).
const (
	siTagSI         = 0x05
	siTagIndication = 0x06
	siAttrHref      = 0x0B // href with no prefix
)

// siHrefStarts are the href attribute start tokens with a value prefix,
// longest first so that encoding picks the longest match.
var siHrefStarts = [...]struct {
	prefix string
	token  byte
}{
	{"https://www.", 0x0F},
	{"http://www.", 0x0D},
	{"https://", 0x0E},
	{"http://", 0x0C},
}

// siValueTokens are the attribute value tokens, indexed by token-0x85.
var siValueTokens = [...]string{".com/", ".edu/", ".net/", ".org/"}

const siValueTokenBase = 0x85

// siAttrStarts names the SI attribute start tokens 0x05..0x12 (WAP-167
// §9.3.2) with their value prefixes, for the decoder.
var siAttrStarts = [...]struct{ name, prefix string }{
	{"action", "signal-none"},   // 0x05
	{"action", "signal-low"},    // 0x06
	{"action", "signal-medium"}, // 0x07
	{"action", "signal-high"},   // 0x08
	{"action", "delete"},        // 0x09
	{"created", ""},             // 0x0A
	{"href", ""},                // 0x0B
	{"href", "http://"},         // 0x0C
	{"href", "http://www."},     // 0x0D
	{"href", "https://"},        // 0x0E
	{"href", "https://www."},    // 0x0F
	{"si-expires", ""},          // 0x10
	{"si-id", ""},               // 0x11
	{"class", ""},               // 0x12
}

const siAttrStartBase = 0x05

// wsiHeader is the fixed start of every payload after the TID octet: WSP
// Push, HeadersLen 3, Content-Type sic, X-Wap-Application-Id wml.ua; then the
// WBXML header and the <si> start tag with content.
var wsiHeader = [...]byte{
	wspPDUPush, 3,
	wspShortIntegerBit | wspContentTypeSIC,
	wspShortIntegerBit | wspHeaderAppID, wspShortIntegerBit | wspAppIDWMLUA,
	wbxmlVersion12, wbxmlPublicIDSI, wbxmlUTF8, 0,
	siTagSI | wbxmlHasContent,
}

// SplitWSI builds the SMS parts of a WAP Push Service Indication that shows
// title and offers url, so that a bulk "wsi" request becomes 8-bit messages
// a phone's push client understands. ref is the concatenation reference,
// chosen by the caller so that concurrent messages to one phone differ; it
// is also the WSP transaction id.
//
// Errors name the field at fault: a missing url or title is
// RC_MISSING_MANDATORY_PARAMETER, a url that is not an absolute http or https
// URL RC_BAD_PARAMETER_VALUE, a title with invalid UTF-8 or control
// characters RC_BAD_CONTENT_FORMAT, and content needing more than MaxParts
// parts RC_CONCAT_ERROR.
func SplitWSI(url, title string, ref uint8) (Message, error) {
	return SplitWSIRef(url, title, ref, Ref8)
}

// SplitWSIRef is SplitWSI for parts whose concatenation reference is of
// width w: with Ref16 each part of a push that needs several holds 127
// octets, its header (ports and the 16-bit element) being 13.
func SplitWSIRef(url, title string, ref uint8, w RefWidth) (Message, error) {
	if err := validateWSIURL(url); err != nil {
		return Message{}, err
	}
	if err := validateWSITitle(title); err != nil {
		return Message{}, err
	}
	payload := make([]byte, 0, wsiPayloadLen(url, title))
	payload = appendWSI(payload, url, title, ref)

	single := UDH{DstPort: WAPPushPort, SrcPort: WAPSessionPort}
	if len(payload) <= userDataOctets-single.Len() {
		return Message{DCS: DCSBinary, Parts: []Part{{Data: payload, Units: len(payload), UDH: single}}}, nil
	}
	concat := UDH{Ref: ref, Total: 1, Seq: 1, DstPort: WAPPushPort, SrcPort: WAPSessionPort}
	capacity := userDataOctets - concat.Len()
	if w == Ref16 {
		capacity-- // the 16-bit reference's octet
	}
	n := (len(payload) + capacity - 1) / capacity
	if n > MaxParts {
		field := "title"
		if wsiPayloadLen(url, "x") > MaxParts*capacity {
			field = "url"
		}
		return Message{}, msgkit.Invalidf(CodeTooManyParts, field,
			"the push needs %d parts, more than %d", n, MaxParts)
	}
	parts := make([]Part, n)
	for i := range parts {
		lo, hi := i*capacity, min((i+1)*capacity, len(payload))
		u := concat
		u.Total, u.Seq = uint8(n), uint8(i+1)
		// The full slice expression keeps an append to one part's Data from
		// overwriting the next part.
		parts[i] = Part{Data: payload[lo:hi:hi], Units: hi - lo, UDH: u}
	}
	return Message{DCS: DCSBinary, Parts: parts}, nil
}

// validateWSIURL accepts absolute http and https URLs with a host, in valid
// UTF-8 without white space or control characters: anything else a phone
// could not open, and a NUL would end the WBXML inline string early.
func validateWSIURL(s string) error {
	if s == "" {
		return msgkit.Invalidf(CodeMissing, "url", "url is required")
	}
	if !utf8.ValidString(s) {
		return msgkit.Invalidf(CodeBadValue, "url", "url is not valid UTF-8")
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }); i >= 0 {
		return msgkit.Invalidf(CodeBadValue, "url", "url has a space or control character at offset %d", i)
	}
	u, err := url.Parse(s)
	if err != nil {
		return msgkit.Invalidf(CodeBadValue, "url", "url is not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return msgkit.Invalidf(CodeBadValue, "url", "url must be an absolute http or https URL")
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return msgkit.Invalidf(CodeBadValue, "url", "url must name a host")
	}
	return nil
}

// validateWSITitle requires a title that is not blank, in valid UTF-8, with
// XML characters only and no control characters (tab and line breaks
// included: the push inbox shows one line).
func validateWSITitle(s string) error {
	if strings.TrimSpace(s) == "" {
		return msgkit.Invalidf(CodeMissing, "title", "title is required")
	}
	if !utf8.ValidString(s) {
		return msgkit.Invalidf(CodeBadContent, "title", "title is not valid UTF-8")
	}
	for i, r := range s {
		if unicode.IsControl(r) || r == 0xFFFE || r == 0xFFFF {
			return msgkit.Invalidf(CodeBadContent, "title", "title has a control character at offset %d", i)
		}
	}
	return nil
}

// wsiPayloadLen is the exact length appendWSI produces.
func wsiPayloadLen(href, title string) int {
	// TID, header, <indication>, attributes END, STR_I title NUL, END END.
	return 1 + len(wsiHeader) + 1 + hrefLen(href) + 1 + len(title) + 2 + 2
}

// appendWSI appends the WSP Push PDU carrying the SI document.
func appendWSI(b []byte, href, title string, tid uint8) []byte {
	b = append(b, tid)
	b = append(b, wsiHeader[:]...)
	b = append(b, siTagIndication|wbxmlHasAttrs|wbxmlHasContent)
	b = appendHref(b, href)
	b = append(b, wbxmlEnd) // end of the attribute list
	b = append(b, wbxmlStrI)
	b = append(b, title...)
	b = append(b, 0)
	return append(b, wbxmlEnd, wbxmlEnd) // </indication></si>
}

// hrefStart returns the href start token for s and the rest of s after the
// token's prefix.
func hrefStart(s string) (byte, string) {
	for _, t := range siHrefStarts {
		if rest, ok := strings.CutPrefix(s, t.prefix); ok {
			return t.token, rest
		}
	}
	return siAttrHref, s
}

// nextValueToken finds the first attribute value token in s: its offset and
// token, or -1.
func nextValueToken(s string) (int, byte) {
	for i := 0; ; i++ {
		k := strings.IndexByte(s[i:], '.')
		if k < 0 {
			return -1, 0
		}
		i += k
		for j, v := range siValueTokens {
			if strings.HasPrefix(s[i:], v) {
				return i, byte(siValueTokenBase + j)
			}
		}
	}
}

// appendHref appends the tokenized href attribute.
func appendHref(b []byte, s string) []byte {
	tok, rest := hrefStart(s)
	b = append(b, tok)
	for rest != "" {
		i, vt := nextValueToken(rest)
		if i < 0 {
			break
		}
		if i > 0 {
			b = append(b, wbxmlStrI)
			b = append(b, rest[:i]...)
			b = append(b, 0)
		}
		b = append(b, vt)
		rest = rest[i+len(siValueTokens[vt-siValueTokenBase]):]
	}
	if rest != "" {
		b = append(b, wbxmlStrI)
		b = append(b, rest...)
		b = append(b, 0)
	}
	return b
}

// hrefLen is the length appendHref produces.
func hrefLen(s string) int {
	_, rest := hrefStart(s)
	n := 1
	for rest != "" {
		i, vt := nextValueToken(rest)
		if i < 0 {
			break
		}
		if i > 0 {
			n += i + 2
		}
		n++
		rest = rest[i+len(siValueTokens[vt-siValueTokenBase]):]
	}
	if rest != "" {
		n += len(rest) + 2
	}
	return n
}

// DecodeWSI is the phone's side of SplitWSI: it reassembles parts in Seq
// order, reads the WSP Push PDU and the WBXML Service Indication, and returns
// the indication's href and text. It reads what a network delivers, so it
// checks everything and fails with RC_BAD_CONTENT_FORMAT instead of trusting
// lengths; parts is not modified.
func DecodeWSI(parts []Part) (url, title string, err error) {
	payload, err := reassembleWSI(parts)
	if err != nil {
		return "", "", err
	}
	body, err := wspPushBody(payload)
	if err != nil {
		return "", "", err
	}
	return decodeSI(body)
}

func wsiErrorf(format string, args ...any) error {
	return msgkit.Errorf(msgkit.Invalid, CodeBadContent, "wap push: "+format, args...)
}

// reassembleWSI checks the UDHs (WAP push port, one reference, every
// sequence number once) and joins the parts' data.
func reassembleWSI(parts []Part) ([]byte, error) {
	if len(parts) == 0 {
		return nil, wsiErrorf("no parts")
	}
	if len(parts) > MaxParts {
		return nil, wsiErrorf("%d parts, more than %d", len(parts), MaxParts)
	}
	for _, p := range parts {
		if p.UDH.DstPort != WAPPushPort {
			return nil, wsiErrorf("destination port %d is not the WAP push port", p.UDH.DstPort)
		}
	}
	if len(parts) == 1 && parts[0].UDH.Total <= 1 {
		if parts[0].UDH.Total == 1 && parts[0].UDH.Seq != 1 {
			return nil, wsiErrorf("part %d of 1", parts[0].UDH.Seq)
		}
		return parts[0].Data, nil
	}
	ordered := make([]*Part, len(parts))
	ref, total := parts[0].UDH.Ref, parts[0].UDH.Total
	if int(total) != len(parts) {
		return nil, wsiErrorf("%d parts for a message of %d", len(parts), total)
	}
	size := 0
	for i := range parts {
		u := parts[i].UDH
		if u.Ref != ref || u.Total != total {
			return nil, wsiErrorf("parts of different messages")
		}
		if u.Seq == 0 || u.Seq > total || ordered[u.Seq-1] != nil {
			return nil, wsiErrorf("part number %d repeated or out of range", u.Seq)
		}
		ordered[u.Seq-1] = &parts[i]
		size += len(parts[i].Data)
	}
	payload := make([]byte, 0, size)
	for _, p := range ordered {
		payload = append(payload, p.Data...)
	}
	return payload, nil
}

// byteReader reads a byte slice without ever indexing past its end.
type byteReader struct {
	b   []byte
	off int
	err error
}

func (r *byteReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = wsiErrorf(format, args...)
	}
}

func (r *byteReader) more() bool { return r.err == nil && r.off < len(r.b) }

func (r *byteReader) next() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail("truncated at offset %d", r.off)
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

func (r *byteReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail("length %d at offset %d runs past the end", n, r.off)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

// uintvar reads a WSP uintvar (WAP-230 §8.1.2) or a WBXML mb_u_int32
// (WAP-192 §5.1): the same encoding, seven bits an octet, high bit set on
// every octet but the last, at most 32 bits.
func (r *byteReader) uintvar() int {
	var v uint64
	for i := 0; i < 5; i++ {
		c := r.next()
		if r.err != nil {
			return 0
		}
		v = v<<7 | uint64(c&0x7F)
		if c&0x80 == 0 {
			if v > 0xFFFFFFFF {
				r.fail("integer over 32 bits")
				return 0
			}
			return int(v)
		}
	}
	r.fail("integer longer than 5 octets")
	return 0
}

// termstr reads a NUL-terminated string.
func (r *byteReader) termstr() []byte {
	if r.err != nil {
		return nil
	}
	i := bytes.IndexByte(r.b[r.off:], 0)
	if i < 0 {
		r.fail("unterminated string at offset %d", r.off)
		return nil
	}
	s := r.b[r.off : r.off+i]
	r.off += i + 1
	return s
}

// wspPushBody checks a connectionless WSP Push PDU (WAP-230 §8.2.4.1) whose
// content type is application/vnd.wap.sic and returns its data.
func wspPushBody(pdu []byte) ([]byte, error) {
	r := byteReader{b: pdu}
	r.next() // TID: any value
	if t := r.next(); r.err == nil && t != wspPDUPush {
		r.fail("WSP PDU type 0x%02X is not Push", t)
	}
	hl := r.uintvar()
	headers := byteReader{b: r.take(hl)}
	if r.err != nil {
		return nil, r.err
	}
	// The other headers (X-Wap-Application-Id among them) do not change how
	// the content reads.
	if !headers.contentTypeIsSIC() {
		if headers.err != nil {
			return nil, headers.err
		}
		return nil, wsiErrorf("content type is not %s", wspSICMediaType)
	}
	return pdu[r.off:], nil
}

// contentTypeIsSIC reads a Content-type-value (WAP-230 §8.4.2.24): a
// Constrained-media (Short-integer or Extension-media text) or the general
// form Value-length Media-type *Parameter.
func (r *byteReader) contentTypeIsSIC() bool {
	c := r.next()
	switch {
	case r.err != nil:
		return false
	case c >= 0x80:
		return c&0x7F == wspContentTypeSIC
	case c >= 0x20:
		r.off--
		return isSICName(r.termstr())
	}
	// General form: Value-length is a Short-length 0..30 or 31 then uintvar.
	n := int(c)
	if c == 31 {
		n = r.uintvar()
	}
	v := byteReader{b: r.take(n)}
	if r.err != nil {
		return false
	}
	m := v.next()
	switch {
	case v.err != nil:
		r.err = v.err
		return false
	case m >= 0x80:
		return m&0x7F == wspContentTypeSIC
	case m <= 30: // Long-integer: Short-length then that many octets
		var code uint64
		if m > 8 {
			r.fail("media code of %d octets", m)
			return false
		}
		for _, o := range v.take(int(m)) {
			code = code<<8 | uint64(o)
		}
		if v.err != nil {
			r.err = v.err
			return false
		}
		return code == wspContentTypeSIC
	}
	v.off--
	return isSICName(v.termstr())
}

func isSICName(s []byte) bool {
	s = bytes.TrimPrefix(s, []byte{0x7F}) // Quote before a text that starts high
	return strings.EqualFold(string(s), wspSICMediaType)
}

// siNode is an element of a decoded WBXML document.
type siNode struct {
	tag      byte // tag identity on code page 0; 0 when on another page or literal
	attrs    []siAttr
	text     []byte // concatenated character data
	children []*siNode
}

type siAttr struct {
	name   string
	value  []byte
	opaque bool
}

// maxSIDepth bounds element nesting; SI needs three levels.
const maxSIDepth = 16

// wbxmlDecoder reads a WBXML document with the SI token tables.
type wbxmlDecoder struct {
	byteReader
	strtbl   []byte
	tagPage  byte
	attrPage byte
}

// decodeSI reads an SI document (WAP-192 §5.3: version, publicid, charset,
// strtbl, body) and returns the first indication's href and text.
func decodeSI(doc []byte) (href, text string, err error) {
	d := wbxmlDecoder{byteReader: byteReader{b: doc}}
	if v := d.next(); d.err == nil && (v < 0x01 || v > 0x03) {
		d.fail("WBXML version 0x%02X", v)
	}
	pub := d.uintvar()
	pubIndex := -1
	if d.err == nil && pub == 0 {
		pubIndex = d.uintvar() // the public id is in the string table
	} else if d.err == nil && pub != wbxmlPublicIDSI {
		d.fail("public identifier 0x%02X is not SI 1.0", pub)
	}
	if cs := d.uintvar(); d.err == nil && cs != wbxmlUTF8 {
		d.fail("charset %d is not UTF-8", cs)
	}
	d.strtbl = d.take(d.uintvar())
	if d.err == nil && pubIndex >= 0 {
		if s, ok := d.tableString(pubIndex); !ok || string(s) != siPublicID {
			d.fail("public identifier is not SI 1.0")
		}
	}
	d.skipPIs()
	root := d.element(0)
	d.skipPIs()
	if d.err == nil && d.off != len(d.b) {
		d.fail("%d octets after the document", len(d.b)-d.off)
	}
	if d.err != nil {
		return "", "", d.err
	}
	if root.tag != siTagSI {
		return "", "", wsiErrorf("root element is not si")
	}
	i := slices.IndexFunc(root.children, func(n *siNode) bool { return n.tag == siTagIndication })
	if i < 0 {
		return "", "", wsiErrorf("no indication element")
	}
	ind := root.children[i]
	if len(ind.children) != 0 {
		return "", "", wsiErrorf("indication holds elements")
	}
	j := slices.IndexFunc(ind.attrs, func(a siAttr) bool { return a.name == "href" })
	if j < 0 {
		return "", "", wsiErrorf("indication has no href")
	}
	if ind.attrs[j].opaque || !utf8.Valid(ind.attrs[j].value) {
		return "", "", wsiErrorf("href is not UTF-8 text")
	}
	if !utf8.Valid(ind.text) {
		return "", "", wsiErrorf("indication text is not UTF-8")
	}
	return string(ind.attrs[j].value), string(ind.text), nil
}

// tableString returns the NUL-terminated string at offset i of the string
// table.
func (d *wbxmlDecoder) tableString(i int) ([]byte, bool) {
	if i < 0 || i >= len(d.strtbl) {
		return nil, false
	}
	n := bytes.IndexByte(d.strtbl[i:], 0)
	if n < 0 {
		return nil, false
	}
	return d.strtbl[i : i+n], true
}

func (d *wbxmlDecoder) strT() []byte {
	i := d.uintvar()
	if d.err != nil {
		return nil
	}
	s, ok := d.tableString(i)
	if !ok {
		d.fail("string table reference %d out of range", i)
	}
	return s
}

// skipPIs skips processing instructions (WAP-192: PI, attrStart,
// *attrValue, END), which SI gives no meaning.
func (d *wbxmlDecoder) skipPIs() {
	for d.more() && d.b[d.off] == wbxmlPI {
		d.off++
		d.attribute() // stops before the END
		if d.next() != wbxmlEnd {
			d.fail("processing instruction not ended")
		}
	}
}

// element reads an element with its attributes and content.
func (d *wbxmlDecoder) element(depth int) *siNode {
	if depth >= maxSIDepth {
		d.fail("elements nested deeper than %d", maxSIDepth)
		return &siNode{}
	}
	c := d.next()
	for d.err == nil && c == wbxmlSwitchPage {
		d.tagPage = d.next()
		c = d.next()
	}
	n := &siNode{}
	if d.err != nil {
		return n
	}
	if isExt(c) {
		d.fail("token 0x%02X where a tag was expected", c)
		return n
	}
	switch c & wbxmlTagMask {
	case wbxmlLiteral:
		d.strT() // unknown tag named in the string table
	case wbxmlEnd, wbxmlEntity, wbxmlStrI:
		d.fail("token 0x%02X where a tag was expected", c)
		return n
	default:
		if d.tagPage == 0 {
			n.tag = c & wbxmlTagMask
		}
	}
	if c&wbxmlHasAttrs != 0 {
		for d.err == nil {
			if d.more() && d.b[d.off] == wbxmlEnd {
				d.off++
				break
			}
			if a, ok := d.attribute(); ok {
				n.attrs = append(n.attrs, a)
			}
		}
	}
	if c&wbxmlHasContent != 0 {
		d.content(n, depth)
	}
	return n
}

// attribute reads attrStart *attrValue and stops before the next attribute
// start or END.
func (d *wbxmlDecoder) attribute() (siAttr, bool) {
	c := d.next()
	for d.err == nil && c == wbxmlSwitchPage {
		d.attrPage = d.next()
		c = d.next()
	}
	if d.err != nil {
		return siAttr{}, false
	}
	var a siAttr
	switch {
	case c == wbxmlLiteral:
		a.name = string(d.strT()) // unknown attribute named in the string table
	case c >= 0x80 || d.attrPage != 0:
		d.fail("attribute start token 0x%02X on page %d", c, d.attrPage)
		return siAttr{}, false
	case c < siAttrStartBase || int(c-siAttrStartBase) >= len(siAttrStarts):
		d.fail("unknown attribute start token 0x%02X", c)
		return siAttr{}, false
	default:
		s := siAttrStarts[c-siAttrStartBase]
		a.name, a.value = s.name, append(a.value, s.prefix...)
	}
	for d.more() {
		c := d.b[d.off]
		switch {
		case c == wbxmlSwitchPage:
			d.off++
			d.attrPage = d.next()
			continue
		case c == wbxmlStrI:
			d.off++
			a.value = append(a.value, d.termstr()...)
			continue
		case c == wbxmlStrT:
			d.off++
			a.value = append(a.value, d.strT()...)
			continue
		case c == wbxmlEntity:
			d.off++
			a.value = d.appendEntity(a.value)
			continue
		case c == wbxmlOpaque:
			d.off++
			a.value = append(a.value, d.take(d.uintvar())...)
			a.opaque = true
			continue
		case c >= 0x80 && !isExt(c):
			d.off++
			i := int(c) - siValueTokenBase
			if d.attrPage != 0 || i < 0 || i >= len(siValueTokens) {
				d.fail("unknown attribute value token 0x%02X", c)
				return siAttr{}, false
			}
			a.value = append(a.value, siValueTokens[i]...)
			continue
		case isExt(c):
			d.fail("extension token 0x%02X has no meaning in SI", c)
			return siAttr{}, false
		}
		break // END or the next attribute start
	}
	return a, d.err == nil
}

func isExt(c byte) bool {
	return (c >= wbxmlExtI0 && c <= wbxmlExtI2) || (c >= wbxmlExtT0 && c <= wbxmlExtT2) || (c >= wbxmlExt0 && c <= wbxmlExt2)
}

// appendEntity reads an ENTITY's character code and appends it as UTF-8.
func (d *wbxmlDecoder) appendEntity(b []byte) []byte {
	v := d.uintvar()
	if d.err != nil {
		return b
	}
	if v > unicode.MaxRune || !utf8.ValidRune(rune(v)) {
		d.fail("entity %d is not a character", v)
		return b
	}
	return utf8.AppendRune(b, rune(v))
}

// content reads an element's content up to and including its END.
func (d *wbxmlDecoder) content(n *siNode, depth int) {
	for d.err == nil {
		if !d.more() {
			d.fail("element not ended")
			return
		}
		switch c := d.b[d.off]; {
		case c == wbxmlEnd:
			d.off++
			return
		case c == wbxmlStrI:
			d.off++
			n.text = append(n.text, d.termstr()...)
		case c == wbxmlStrT:
			d.off++
			n.text = append(n.text, d.strT()...)
		case c == wbxmlEntity:
			d.off++
			n.text = d.appendEntity(n.text)
		case c == wbxmlPI:
			d.skipPIs()
		case c == wbxmlOpaque:
			d.fail("opaque data in element content")
		case isExt(c):
			d.fail("extension token 0x%02X has no meaning in SI", c)
		default: // SWITCH_PAGE or a tag
			n.children = append(n.children, d.element(depth+1))
		}
	}
}
