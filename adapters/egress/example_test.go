package egress_test

import (
	"fmt"
	"net/http"
	"net/netip"

	"github.com/msgkit/msgkit/adapters/egress"
)

func ExamplePolicy_Check() {
	var p egress.Policy // the defaults
	for _, s := range []string{"93.184.215.14", "169.254.169.254", "::ffff:10.0.0.1"} {
		fmt.Println(s, p.Check(netip.MustParseAddr(s)))
	}
	dev := egress.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	fmt.Println(dev.IsAllowed(netip.MustParseAddr("127.0.0.1")))
	// Output:
	// 93.184.215.14 <nil>
	// 169.254.169.254 egress: 169.254.169.254 refused: link-local (169.254.0.0/16)
	// ::ffff:10.0.0.1 egress: 10.0.0.1 refused: private (10.0.0.0/8)
	// true
}

func ExampleParseHost() {
	for _, host := range []string{"0x7f.1", "2130706433", "dlr.example.com", "1.2.3.4.5"} {
		a, isAddr, err := egress.ParseHost(host)
		fmt.Println(host, a, isAddr, err != nil)
	}
	// Output:
	// 0x7f.1 127.0.0.1 true false
	// 2130706433 127.0.0.1 true false
	// dlr.example.com invalid IP false false
	// 1.2.3.4.5 invalid IP false true
}

func ExampleNewTransport() {
	client := &http.Client{Transport: egress.NewTransport(egress.Policy{})}
	_, err := client.Get("http://169.254.169.254/latest/meta-data/")
	fmt.Println(err)
	// Output:
	// Get "http://169.254.169.254/latest/meta-data/": egress: 169.254.169.254 refused: link-local (169.254.0.0/16)
}
