package idempotency_test

import (
	"context"
	"fmt"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/msgkittest"
)

// A create runs once per key: the retry gets the first answer, a request
// with other content under the same key is refused, and a day later the
// key is free again.
func Example() {
	ctx := context.Background()
	clk := msgkittest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	svc := idempotency.NewService(memstore.New().Idempotency(), idempotency.Options{Clock: clk.Now})
	key, _ := idempotency.ParseKey(`"order-17"`)
	create := func(body string) {
		req := idempotency.Request{Scope: "client:shop", Key: key, Fingerprint: idempotency.FingerprintOf([]byte("POST /orders"), []byte(body))}
		c, err := svc.Begin(ctx, req)
		switch {
		case err != nil:
			fmt.Println("refused:", msgkit.CodeOf(err))
		case c.Replay:
			fmt.Printf("replayed: %d %s\n", c.Record.Answer.Status, c.Record.Answer.Body)
		default:
			answer := idempotency.Answer{Status: 201, Body: []byte(`{"order":` + body + `}`)}
			fmt.Printf("created: %d %s\n", answer.Status, answer.Body)
			if err := svc.Finish(ctx, c, answer); err != nil {
				fmt.Println(err)
			}
		}
	}
	create("1")
	create("1")
	create("2")
	clk.Advance(24 * time.Hour)
	create("2")
	// Output:
	// created: 201 {"order":1}
	// replayed: 201 {"order":1}
	// refused: idempotency_key_reused
	// created: 201 {"order":2}
}
