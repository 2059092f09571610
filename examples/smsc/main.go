// Command smsc runs the SMSC simulator of package sms/smpp/smppsim as a
// process: an SMPP 3.4 server to point the platform's -smpp connection at
// on one machine, for trying SMPP out and for the end-to-end figures of
// examples/dlrsink/run.sh.
//
//	go run ./examples/smsc -addr 127.0.0.1:2775 -system-id msgkit -password secret
//
// It binds the one account, answers every submit_sm with a message id,
// sends a delivery receipt (DELIVRD) -receipt-delay after each answer, and
// prints a line of counts every -progress and when it stops (SIGINT or
// SIGTERM): submits taken, receipts sent and acknowledged.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:2775", "listen address")
	systemID := flag.String("system-id", "msgkit", "the account's system_id")
	password := flag.String("password", "secret", "the account's password")
	delay := flag.Duration("receipt-delay", 100*time.Millisecond, "from a submit's answer to its receipt")
	window := flag.Int("receipt-window", 200, "unacknowledged receipts per connection")
	hex := flag.Bool("hex-ids", false, "message ids in hex (else decimal)")
	every := flag.Duration("progress", 5*time.Second, "how often to print the counts; 0: only at the end")
	flag.Parse()
	format := smppsim.IDDecimal
	if *hex {
		format = smppsim.IDHex
	}
	sim := smppsim.New(smppsim.Options{
		Addr: *addr, Accounts: map[string]string{*systemID: *password},
		IDFormat: format, ReceiptDelay: *delay, ReceiptWindow: *window,
	})
	bound, err := sim.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "smsc:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "smsc: listening on %s\n", bound)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	counts := func() string {
		return fmt.Sprintf("smsc: %d submits taken, %d refused, %d receipts sent, %d acknowledged, %d unacknowledged",
			len(sim.Submits()), len(sim.Refused()), sim.ReceiptsSent(), len(sim.Acked()), len(sim.Unacked()))
	}
	var tick <-chan time.Time
	if *every > 0 {
		t := time.NewTicker(*every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-tick:
			fmt.Fprintln(os.Stderr, counts())
		case <-ctx.Done():
			fmt.Println(counts())
			sim.Close()
			return
		}
	}
}
