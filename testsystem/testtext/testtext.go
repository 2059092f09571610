package testtext

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

// Kind is the kind of a test text: its coding, how many parts it needs,
// and whether it holds a whole character set.
type Kind string

// The kinds of test text, as the text_type field of a test request names
// them.
const (
	GSM       Kind = "gsm"        // GSM 7-bit, one part
	GSMConcat Kind = "gsm_concat" // GSM 7-bit, 2 to 4 parts
	GSMSet    Kind = "gsm_set"    // GSM 7-bit holding every printable character of the default alphabet and of its extension table
	UCS       Kind = "ucs"        // UCS-2 (at least one character outside GSM), one part
	UCSConcat Kind = "ucs_concat" // UCS-2, 2 to 4 parts
	UCSSet    Kind = "ucs_set"    // UCS-2 holding every letter of the language's alphabet, both cases where the script has them
)

// kinds lists the kinds in the order of Kinds; a kind's index in it is
// where a language keeps its templates of that kind.
var kinds = [...]Kind{GSM, GSMConcat, GSMSet, UCS, UCSConcat, UCSSet}

// kindList is kinds as a message spells them.
const kindList = "gsm, gsm_concat, gsm_set, ucs, ucs_concat or ucs_set"

// Kinds lists the kinds: gsm, gsm_concat, gsm_set, ucs, ucs_concat, ucs_set.
func Kinds() []Kind { return slices.Clone(kinds[:]) }

// ParseKind reads a text_type. Like sms.ParseDCS it ignores case ("GSM" is
// gsm); ok is false for anything that is not a kind.
func ParseKind(s string) (Kind, bool) {
	for _, k := range kinds {
		if strings.EqualFold(s, string(k)) {
			return k, true
		}
	}
	return "", false
}

// index is k's position in kinds; ok is false when k is not a kind.
func (k Kind) index() (int, bool) {
	i := slices.Index(kinds[:], k)
	return i, i >= 0
}

// spec is what a kind's texts must be.
type spec struct {
	dcs      gsm.DCS // the coding gsm.CountText resolves DCSAuto to
	min, max int     // parts, inclusive
}

// spec returns k's rules; k must be a kind.
func (k Kind) spec() spec {
	s := spec{dcs: gsm.DCSGSM, min: 1, max: 1}
	if k == UCS || k == UCSConcat || k == UCSSet {
		s.dcs = gsm.DCSUCS
	}
	switch k {
	case GSMConcat, UCSConcat:
		s.min, s.max = 2, maxParts
	case GSMSet, UCSSet:
		s.max = maxParts
	}
	return s
}

// parts describes the part range of s ("1 part", "2 to 4 parts").
func (s spec) parts() string {
	if s.min == s.max {
		return parts(s.min)
	}
	return fmt.Sprintf("%d to %d parts", s.min, s.max)
}

func parts(n int) string {
	if n == 1 {
		return "1 part"
	}
	return fmt.Sprintf("%d parts", n)
}

const (
	// maxParts bounds the concatenated and set kinds: a test should cost
	// little, and four parts show every concatenation fault.
	maxParts = 4
	// maxMark is the longest mark; Load counts every template with marks
	// of 1 and of maxMark characters.
	maxMark     = 12
	placeholder = "{mark}"
)

// Language is a language of the library.
type Language struct {
	Code string // lower-case ISO 639-1 ("en")
	Name string // in English ("English")
}

// Text is a generated test text.
type Text struct {
	Body   string
	DCS    gsm.DCS // gsm.DCSGSM or gsm.DCSUCS, as gsm.CountText(Body, gsm.DCSAuto) resolves it
	Parts  int     // as gsm.CountText counts them
	Sender string  // the template's sender: alphanumeric, at most 11 characters, accepted by sms.ParseSender
}

// Library is a checked set of templates. It is immutable and safe for
// concurrent use.
type Library struct {
	langs  []Language // sorted by code
	byCode map[string]*language
}

// language is a language's templates, by kind index.
type language struct {
	Language
	texts [len(kinds)][]template
	// noGSM is set when the language has no GSM-coded template and its
	// alphabet has letters outside GSM: its script is not GSM's.
	noGSM bool
	kinds string // the kinds it has, as a message lists them ("ucs, ucs_concat or ucs_set")
}

// template is a text split around its placeholder.
type template struct {
	before, after, sender string
}

//go:embed templates.json
var builtin []byte

// defaultLibrary loads the built-in library once; the Library is
// immutable, so every caller may share it.
var defaultLibrary = sync.OnceValue(func() *Library {
	l, err := Load(bytes.NewReader(builtin))
	if err != nil {
		panic("testtext: the built-in templates.json is broken: " + err.Error())
	}
	return l
})

// Default returns the built-in library of templates.json, the same
// Library on every call. It panics only if the embedded file is broken,
// which its tests rule out.
func Default() *Library { return defaultLibrary() }

// Languages lists the library's languages sorted by code.
func (l *Library) Languages() []Language { return slices.Clone(l.langs) }

// Language returns the language of code, ignoring case ("EN" is en).
func (l *Library) Language(code string) (Language, bool) {
	lg, ok := l.lookup(code)
	if !ok {
		return Language{}, false
	}
	return lg.Language, true
}

func (l *Library) lookup(code string) (*language, bool) {
	lg, ok := l.byCode[strings.ToLower(code)] // no allocation for a lower-case code
	return lg, ok
}

// Error codes of Text.
const (
	codeUnknownLanguage = "unknown_language"
	codeInvalidKind     = "invalid_text_type"
	codeUnavailable     = "text_type_unavailable"
	codeInvalidMark     = "invalid_mark"
	codeInvalidLibrary  = "invalid_library"
)

// Text is a text of kind k in language lang holding mark, chosen among the
// language's templates of that kind by n (n modulo their number), so
// callers vary texts deterministically. lang ignores case.
//
// An unknown language is Invalid unknown_language naming text_lang; a k
// that is no kind is Invalid invalid_text_type naming text_type (both
// fields when both are wrong), and a kind the language has no template of
// is Invalid text_type_unavailable naming text_type. A mark that is not 1
// to 12 ASCII letters and digits is the caller's bug: Internal
// invalid_mark.
func (l *Library) Text(lang string, k Kind, mark string, n uint64) (Text, error) {
	if !validMark(mark) {
		return Text{}, msgkit.Errorf(msgkit.Internal, codeInvalidMark,
			"mark %s must be 1 to %d ASCII letters or digits", quote(mark), maxMark)
	}
	lg, langOK := l.lookup(lang)
	i, kindOK := k.index()
	switch {
	case !langOK:
		err := msgkit.Invalidf(codeUnknownLanguage, "text_lang",
			"language %s has no test texts; see the languages list", quote(lang))
		if !kindOK {
			err.WithField("text_type", badKind(k), "")
		}
		return Text{}, err
	case !kindOK:
		return Text{}, msgkit.Invalidf(codeInvalidKind, "text_type", "%s", badKind(k))
	}
	ts := lg.texts[i]
	if len(ts) == 0 {
		why := ""
		if lg.noGSM && k.spec().dcs == gsm.DCSGSM {
			why = ": its script is not in the GSM alphabet"
		}
		return Text{}, msgkit.Invalidf(codeUnavailable, "text_type",
			"language %q has no %s texts%s; use %s", lg.Code, k, why, lg.kinds)
	}
	t := ts[n%uint64(len(ts))]
	body := t.before + mark + t.after
	c, err := gsm.CountText(body, gsm.DCSAuto)
	if err != nil {
		// Load counted every template with marks of every length.
		return Text{}, msgkit.Wrap(err, msgkit.Internal, "", "a checked template failed to count")
	}
	return Text{Body: body, DCS: c.DCS, Parts: c.Parts, Sender: t.sender}, nil
}

func badKind(k Kind) string {
	return fmt.Sprintf("text_type %s is not a kind of test text; use %s", quote(string(k)), kindList)
}

// validMark reports whether mark is 1 to maxMark ASCII letters or digits.
func validMark(mark string) bool {
	if mark == "" || len(mark) > maxMark {
		return false
	}
	for i := 0; i < len(mark); i++ {
		if !isAlnum(rune(mark[i])) {
			return false
		}
	}
	return true
}

func isAlnum(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z'
}

// quote quotes s for a message, cut to a few characters, so that a huge
// input never makes a huge message.
func quote(s string) string {
	const most = 24
	if utf8.RuneCountInString(s) <= most {
		return strconv.Quote(s)
	}
	i, n := 0, 0
	for i = range s {
		if n == most {
			break
		}
		n++
	}
	return strconv.Quote(s[:i]) + "…"
}

// The library's JSON (see the package doc).
type (
	libraryJSON struct {
		Languages []languageJSON `json:"languages"`
	}
	languageJSON struct {
		Code      string                    `json:"code"`
		Name      string                    `json:"name"`
		Sender    string                    `json:"sender"`
		Alphabet  string                    `json:"alphabet"`
		Templates map[string][]templateJSON `json:"templates"`
	}
	templateJSON struct {
		Text   string `json:"text"`
		Sender string `json:"sender"`
	}
)

// Load reads a library in the JSON format of templates.json (see the
// package doc) and checks every language and template. Problems are
// reported all at once: an Invalid invalid_library error with a field per
// problem, named by language code, kind and template index ("ru.ucs[1]";
// "languages[3]" for a language without a usable code).
func Load(r io.Reader) (*Library, error) {
	var in libraryJSON
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, libraryError([]msgkit.FieldError{{Name: "library", Message: jsonProblem(err)}})
	}
	var p problems
	if _, err := dec.Token(); err != io.EOF {
		p.add("library", "trailing data after the library's JSON object")
	}
	l := &Library{byCode: make(map[string]*language, len(in.Languages))}
	if len(in.Languages) == 0 {
		p.add("languages", "the library has no languages")
	}
	first := map[string]int{}
	for i, lj := range in.Languages {
		id := fmt.Sprintf("languages[%d]", i)
		code := lj.Code
		switch j, dup := first[code]; {
		case isoCodes[code] && dup:
			p.add(id+".code", "code %q is used again (first by languages[%d])", code, j)
			code = ""
		case isoCodes[code]:
			id = code
			first[code] = i
		case isoCodes[strings.ToLower(code)]:
			p.add(id+".code", "code %s must be lower case", quote(code))
			code = ""
		case code == "":
			p.add(id+".code", "code is missing")
		default:
			p.add(id+".code", "code %s is not an ISO 639-1 code", quote(code))
			code = ""
		}
		lg := loadLanguage(&p, id, lj)
		if code != "" {
			l.byCode[code] = lg
			l.langs = append(l.langs, lg.Language)
		}
	}
	if len(p.fields) > 0 {
		return nil, libraryError(p.fields)
	}
	slices.SortFunc(l.langs, func(a, b Language) int { return strings.Compare(a.Code, b.Code) })
	return l, nil
}

// loadLanguage checks a language and its templates, noting problems under
// id.
func loadLanguage(p *problems, id string, lj languageJSON) *language {
	lg := &language{Language: Language{Code: lj.Code, Name: lj.Name}}
	switch name := strings.TrimSpace(lj.Name); {
	case name == "":
		p.add(id+".name", "name is missing")
	case name != lj.Name || !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl):
		p.add(id+".name", "name %s must be printable, without leading or trailing spaces", quote(lj.Name))
	}
	alphabet := checkAlphabet(p, id, lj.Alphabet)
	senderOK := lj.Sender == "" || checkSender(p, id+".sender", lj.Sender)

	for _, key := range slices.Sorted(maps.Keys(lj.Templates)) {
		if _, ok := Kind(key).index(); !ok {
			p.add(id+".templates", "%s is not a kind of test text; kinds are %s", quote(key), kindList)
		}
	}
	total := 0
	for i, k := range kinds {
		tjs := lj.Templates[string(k)]
		total += len(tjs)
		if k == UCSSet && len(tjs) > 0 && lj.Alphabet == "" {
			p.add(id+".alphabet", "alphabet is missing; ucs_set texts must hold it")
		}
		for j, tj := range tjs {
			name := fmt.Sprintf("%s.%s[%d]", id, k, j)
			t, ok := checkTemplate(p, name, k, tj.Text, alphabet)
			switch {
			case tj.Sender != "":
				t.sender = tj.Sender
				ok = checkSender(p, name+".sender", tj.Sender) && ok
			case lj.Sender != "":
				t.sender = lj.Sender
				ok = senderOK && ok
			default:
				p.add(name+".sender", "no sender: give the template or its language one")
				ok = false
			}
			if ok {
				lg.texts[i] = append(lg.texts[i], t)
			}
		}
	}
	if total == 0 {
		p.add(id+".templates", "the language has no templates")
	}

	var have []string
	hasGSM := false
	for i, k := range kinds {
		if len(lg.texts[i]) > 0 {
			have = append(have, string(k))
			hasGSM = hasGSM || k.spec().dcs == gsm.DCSGSM
		}
	}
	lg.kinds = orList(have)
	lg.noGSM = !hasGSM && strings.ContainsFunc(lj.Alphabet, notGSM)
	return lg
}

// checkAlphabet checks that an alphabet holds letters (and combining
// marks, such as Devanagari vowel signs) once each, in both cases where
// the script has them: it is closed under Unicode simple case mapping. It
// returns the alphabet's set.
func checkAlphabet(p *problems, id, alphabet string) map[rune]bool {
	set := make(map[rune]bool, len(alphabet))
	var bad, twice []rune
	for _, r := range alphabet {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsMark(r):
			bad = append(bad, r)
		case set[r]:
			twice = append(twice, r)
		}
		set[r] = true
	}
	var other []rune
	for _, r := range alphabet {
		for _, c := range [...]rune{unicode.ToUpper(r), unicode.ToLower(r)} {
			if !set[c] {
				other = append(other, c)
				set[c] = true // once in the message
			}
		}
	}
	for _, r := range other {
		delete(set, r)
	}
	if len(bad) > 0 {
		p.add(id+".alphabet", "alphabet holds %s, which are not letters", runes(bad))
	}
	if len(twice) > 0 {
		p.add(id+".alphabet", "alphabet holds %s more than once", runes(twice))
	}
	if len(other) > 0 {
		p.add(id+".alphabet", "alphabet lacks %s, the other case of its letters", runes(other))
	}
	return set
}

// checkTemplate checks a template's text against its kind, noting
// problems under name. ok is false when it has any.
func checkTemplate(p *problems, name string, k Kind, text string, alphabet map[rune]bool) (t template, ok bool) {
	if n := strings.Count(text, placeholder); n != 1 {
		p.add(name, "text must hold %s exactly once; it holds it %d times", placeholder, n)
		return t, false
	}
	t.before, t.after, _ = strings.Cut(text, placeholder)
	ok = true
	fail := func(format string, args ...any) {
		p.add(name, format, args...)
		ok = false
	}
	r, _ := utf8.DecodeLastRuneInString(t.before)
	r2, _ := utf8.DecodeRuneInString(t.after)
	if isAlnum(r) || isAlnum(r2) {
		fail("%s must not touch an ASCII letter or digit, or the mark would run into the text", placeholder)
	}

	s := k.spec()
	// A mark's characters are one septet or one UTF-16 unit each, and a
	// character more never makes greedy packing need fewer parts: the
	// shortest and the longest mark bound every length between. A problem
	// is reported once, for the first that shows it.
	for _, mark := range [...]string{strings.Repeat("M", maxMark), "M"} {
		n := len(mark)
		c, err := gsm.CountText(t.before+mark+t.after, gsm.DCSAuto)
		switch {
		case err != nil:
			fail("with a %d-character mark: %s", n, msgkit.MessageOf(err))
		case c.DCS != s.dcs && s.dcs == gsm.DCSGSM:
			r, _ := utf8.DecodeRuneInString(text[max(0, strings.IndexFunc(text, notGSM)):])
			fail("a %s text must be GSM 7-bit, but %q (U+%04X) is not in the GSM alphabet", k, r, r)
		case c.DCS != s.dcs:
			fail("a %s text must be UCS-2, but every character is in the GSM alphabet", k)
		case c.Parts < s.min || c.Parts > s.max:
			fail("with a %d-character mark the text needs %s; a %s text needs %s", n, parts(c.Parts), k, s.parts())
		default:
			continue
		}
		break
	}

	var want map[rune]bool
	switch k {
	case GSMSet:
		want = gsmSet
	case UCSSet:
		want = alphabet
	}
	if len(want) > 0 {
		has := make(map[rune]bool, len(want))
		for _, part := range [...]string{t.before, t.after} {
			for _, r := range part {
				if want[r] {
					has[r] = true
				}
			}
		}
		var missing []rune
		for r := range want {
			if !has[r] {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			what := "of the alphabet"
			if k == GSMSet {
				what = "of the GSM alphabet and its extension table"
			}
			fail("a %s text must hold every character %s, but lacks %s", k, what, runes(missing))
		}
	}
	return t, ok
}

func notGSM(r rune) bool { return !gsm.InAlphabet(r) }

// checkSender checks that s is an alphanumeric sender sms.ParseSender
// accepts.
func checkSender(p *problems, name, s string) bool {
	sender, err := sms.ParseSender(s)
	switch {
	case err != nil:
		p.add(name, "sender %s: %s", quote(s), msgkit.MessageOf(err))
	case sender.Numeric:
		p.add(name, "sender %s is numeric; test texts need an alphanumeric sender", quote(s))
	default:
		return true
	}
	return false
}

// gsmSet holds every printable character of the GSM 03.38 default
// alphabet and its extension table, line feed included; carriage return,
// escape and form feed are left out. '€' (U+20AC) is the highest.
var gsmSet = func() map[rune]bool {
	set := map[rune]bool{}
	for r := range rune(0x20AC + 1) {
		if gsm.InAlphabet(r) && (r == '\n' || !unicode.IsControl(r)) {
			set[r] = true
		}
	}
	return set
}()

// isoCodes holds the ISO 639-1 codes in force (withdrawn ones such as iw,
// in, ji, jw, mo, sh and bh are not).
var isoCodes = func() map[string]bool {
	const all = "aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy " +
		"da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz " +
		"ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo " +
		"lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps " +
		"pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn " +
		"to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu"
	set := map[string]bool{}
	for _, c := range strings.Fields(all) {
		set[c] = true
	}
	return set
}()

// problems collects what is wrong with a library.
type problems struct{ fields []msgkit.FieldError }

func (p *problems) add(name, format string, args ...any) {
	p.fields = append(p.fields, msgkit.FieldError{Name: name, Message: fmt.Sprintf(format, args...)})
}

func libraryError(fields []msgkit.FieldError) error {
	noun := "problems"
	if len(fields) == 1 {
		noun = "problem"
	}
	return &msgkit.Error{Kind: msgkit.Invalid, Code: codeInvalidLibrary,
		Message: fmt.Sprintf("the test text library has %d %s", len(fields), noun), Fields: fields}
}

// jsonProblem describes a decoding error without Go's type names.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("invalid JSON at byte %d: %s", syntax.Offset, strings.TrimPrefix(syntax.Error(), "json: "))
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the library"
		}
		return fmt.Sprintf("%s must not be a JSON %s", field, typ.Value)
	case errors.Is(err, io.EOF):
		return "the library is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the library's JSON ends too early"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// runes lists rs for a message, quoted, cut after a few dozen.
func runes(rs []rune) string {
	const most = 40
	if len(rs) <= most {
		return strconv.Quote(string(rs))
	}
	return fmt.Sprintf("%s and %d more", strconv.Quote(string(rs[:most])), len(rs)-most)
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
