package gsm

// The codes of the errors this package returns: each a *msgkit.Error of
// kind Invalid naming the field at fault ("text", "dcs", "url", "title";
// none for what DecodeWSI and DecodeDeliver read). Package sms gives each
// the bulk SMS interface's submission code (sms.CodeOf).
const (
	CodeMissing       = "missing"         // an empty text, url or title (RC_MISSING_MANDATORY_PARAMETER, 110)
	CodeBadContent    = "bad_content"     // text or title not valid UTF-8, a title with control characters, a push that does not decode (RC_BAD_CONTENT_FORMAT, 109)
	CodeNotInAlphabet = "not_in_alphabet" // a character outside GSM 03.38 with DCSGSM (RC_ENCODING_ERROR, 102)
	CodeTooManyParts  = "too_many_parts"  // more than MaxParts parts (RC_CONCAT_ERROR, 115)
	CodeBadValue      = "bad_value"       // a url that is not an absolute http or https URL, a DCS that cannot carry text (RC_BAD_PARAMETER_VALUE, 112)
	CodeInvalidPDU    = "invalid_pdu"     // an SMS-DELIVER PDU that DecodeDeliver cannot read, or one EncodeDeliver cannot write
)
