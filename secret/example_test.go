package secret_test

import (
	"context"
	"fmt"

	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/secret"
	"github.com/msgkit/msgkit/sms"
)

// Bulk SMS accounts keep a bcrypt hash of their password. A wrong password
// and an unknown account get the same answer after the same one bcrypt
// comparison, so neither the answer nor its time tells which accounts
// exist.
func ExampleCheck() {
	ctx := context.Background()
	checker := secret.NewChecker(bcrypt.MinCost) // 0: bcrypt.DefaultCost
	hash, err := checker.Hash("correct horse")
	if err != nil {
		fmt.Println(err)
		return
	}
	accounts := memstore.New().SMS()
	if err := accounts.CreateAccount(ctx, sms.Account{Username: "shop", PasswordHash: hash, Enabled: true, Currency: "EUR"}); err != nil {
		fmt.Println(err)
		return
	}
	refused := msgkit.New(msgkit.Unauthorized, "invalid_credentials", "wrong username or password")
	for _, try := range []struct{ user, password string }{
		{"shop", "correct horse"},
		{"shop", "battery staple"},
		{"nobody", "correct horse"},
	} {
		a, err := secret.Check(ctx, checker, accounts.Account, try.user, try.password,
			func(a sms.Account) string { return a.PasswordHash }, refused)
		if err != nil {
			fmt.Printf("%s: %s\n", try.user, msgkit.CodeOf(err))
			continue
		}
		fmt.Printf("%s: welcome, %s\n", try.user, a.Username)
	}
	// Output:
	// shop: welcome, shop
	// shop: invalid_credentials
	// nobody: invalid_credentials
}
