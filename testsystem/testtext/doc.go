// Package testtext writes the texts of SMS route tests. A test request
// names a language (text_lang) and a kind of text (text_type); a Library
// of templates gives a text of that kind in that language holding the
// test's mark, a short code of ASCII letters and digits that matches the
// test handset's receipt to the message even when a route alters the rest
// of the text.
//
// # Kinds
//
// A kind fixes the coding that gsm.CountText(text, gsm.DCSAuto) resolves a
// text to, and how many parts it needs:
//
//	gsm         GSM 7-bit, 1 part
//	gsm_concat  GSM 7-bit, 2 to 4 parts
//	gsm_set     GSM 7-bit, 1 to 4 parts, holding every printable character of
//	            the default alphabet and of its extension table
//	ucs         UCS-2 (a character outside GSM), 1 part
//	ucs_concat  UCS-2, 2 to 4 parts
//	ucs_set     UCS-2, 1 to 4 parts, holding every letter of the language's
//	            alphabet
//
// The set kinds show whether a route delivers each character unchanged;
// the concatenated kinds whether it reassembles parts. Four parts at most
// keep a test cheap and show every concatenation fault.
//
// # Library format
//
// A library is one JSON object (templates.json is the built-in one; the
// comments here are not part of the format):
//
//	{"languages": [{
//	  "code": "pl",                 // lower-case ISO 639-1, unique
//	  "name": "Polish",             // in English
//	  "sender": "TestSMS",          // the templates' sender unless one has its own
//	  "alphabet": "AĄBC…aąbc…",     // every letter, both cases; needed for ucs_set
//	  "templates": {
//	    "gsm": [{"text": "Test trasy {mark}: …"}, {"text": "…", "sender": "msgkit"}],
//	    "ucs_set": [{"text": "Test alfabetu {mark}: …"}]
//	  }
//	}]}
//
// A template's index is its position in its kind's list; Library.Text
// takes its n modulo the list's length. Unknown fields and kinds are
// refused, so a misspelt name is found at once.
//
// Load checks every template and reports every problem at once, each
// named by language code, kind and index ("ru.ucs_set[1]"):
//   - the text holds "{mark}" exactly once, and no ASCII letter or digit
//     touches it, so the mark stays a word of its own;
//   - with a mark of 1 character and with one of 12, gsm.CountText
//     resolves the text to its kind's coding and part range. A mark's
//     characters are one septet or one UTF-16 unit each, and a character
//     more never lets greedy packing use fewer parts, so the two bound
//     every length between;
//   - a gsm_set text, the mark aside, holds every printable character of
//     the GSM 03.38 default alphabet and extension table: line feed and
//     space count; carriage return, escape and form feed need not;
//   - a ucs_set text, the mark aside, holds every letter of its language's
//     alphabet;
//   - the sender, the template's or its language's, is one that
//     sms.ParseSender accepts and not numeric.
//
// A language's alphabet holds letters and combining marks (Devanagari
// vowel signs), each once, and is closed under Unicode's simple case
// mapping: a letter's other case is in it too where the script has cases.
//
// # The built-in library
//
// It holds English, German, French, Spanish, Italian, Portuguese, Dutch,
// Polish, Turkish, Greek, Russian, Ukrainian, Arabic, Hebrew, Chinese and
// Hindi, with two templates of every kind a language has: natural
// sentences that say the message is a route test and what it checks, in
// place of filler text. Choices:
//   - Latin-script languages have all six kinds. Their gsm texts use only
//     letters GSM holds: é, è, à, ù, ì, ò, ä, ö, ü, ñ, ß, Ç, É and the like
//     stay, while ç, â, ê, á, í, ó, ú, ã and the others are avoided by the
//     choice of words. Polish and Turkish cannot avoid their letters
//     outside GSM (ą, ę, ł, ś, ı, ş, ğ, …) in longer texts; there, as users
//     do when they keep an SMS in GSM, they are written as their plain
//     letters (wiadomosc, mesaji). Their ucs texts carry letters of the
//     language outside GSM (Polish ą ę ł, Italian È, Dutch ë) or its
//     typography: „German“ and « French » quotes, ’ and emoji.
//   - Greek has only the ucs kinds. GSM holds ten upper-case Greek letters
//     (Δ Φ Γ Λ Ω Π Ψ Σ Θ Ξ) and no lower-case ones; upper-case Greek in GSM
//     borrows Latin A, B, E… for the rest, which is a route's
//     transliteration, not Greek text, and is what a route test must be
//     able to detect. Russian, Ukrainian, Arabic, Hebrew, Chinese and Hindi
//     have only the ucs kinds, as their scripts are not in GSM.
//   - Alphabets list the letters with the diacritics the orthography uses
//     (Spanish á é í ó ú ü ñ, French à â æ ç … ÿ), upper-case Greek with
//     tonos and dialytika and final ς, German with ẞ (the capital sharp s,
//     official since 2017), Hebrew with its final forms, Arabic with the
//     hamza forms, tāʼ marbūṭa and alif maqṣūra, and Hindi's vowels,
//     consonants and vowel signs (the text shows the signs on क, as
//     children learn them). Chinese has no alphabet: its ucs_set texts hold
//     a hundred of the most frequent characters of modern written Chinese.
//   - Marks are set off from the text by a space or punctuation. Each
//     language has a sender of its own (RouteTest, Routentest, PruebaSMS,
//     SMSTest, …); the second gsm, gsm_concat, ucs and ucs_concat
//     templates are sent as "msgkit", so that varying n also varies the
//     sender.
//
// # Requests
//
// Text and Language ignore the case of a language code ("EN" is en) and
// ParseKind that of a kind, as sms.ParseDCS does for dcs. Errors name the
// request's fields: an unknown language is Invalid unknown_language on
// text_lang; an unknown kind Invalid invalid_text_type on text_type; a kind
// the language has no template of Invalid text_type_unavailable on
// text_type, listing the kinds it has. A mark that is not 1 to 12 ASCII
// letters or digits is the caller's bug and Internal.
package testtext
