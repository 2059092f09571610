package testtext_test

import (
	"fmt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/testsystem/testtext"
)

func ExampleLibrary_Text() {
	l := testtext.Default()
	for _, k := range []testtext.Kind{testtext.GSM, testtext.UCS} {
		txt, err := l.Text("de", k, "K7PQ2MXD", 0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%v, %d part, from %s: %s\n", txt.DCS, txt.Parts, txt.Sender, txt.Body)
	}
	_, err := l.Text("ru", testtext.GSM, "K7PQ2MXD", 0)
	fmt.Println(msgkit.CodeOf(err), msgkit.MessageOf(err))
	// Output:
	// GSM, 1 part, from Routentest: Routentest K7PQ2MXD: Diese Nachricht prüft Zustellung, Absender und Inhalt. Bitte nicht antworten.
	// UCS, 1 part, from Routentest: Routentest K7PQ2MXD: Kommen „Anführungszeichen“ richtig an?
	// text_type_unavailable language "ru" has no gsm texts: its script is not in the GSM alphabet; use ucs, ucs_concat or ucs_set
}

func ExampleLibrary_Languages() {
	for _, lang := range testtext.Default().Languages()[:3] {
		fmt.Println(lang.Code, lang.Name)
	}
	// Output:
	// ar Arabic
	// de German
	// el Greek
}
