package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/sms"
	"github.com/shopspring/decimal"
)

// bootstrapFile is what -bootstrap reads: the clients, users and API keys an
// operator wants to exist. Each secret may be given in clear, as a bcrypt
// hash, or as the name of an environment variable holding it, so files can
// be committed without secrets.
type bootstrapFile struct {
	Clients []struct {
		ID         string   `json:"id"`
		Name       string   `json:"name"`
		Secret     string   `json:"secret"`
		SecretHash string   `json:"secretHash"`
		SecretEnv  string   `json:"secretEnv"`
		Networks   []string `json:"networks"`
		Services   []string `json:"services"`
		Privileges []string `json:"privileges"`
	} `json:"clients"`
	Users []struct {
		Username     string   `json:"username"`
		Password     string   `json:"password"`
		PasswordHash string   `json:"passwordHash"`
		PasswordEnv  string   `json:"passwordEnv"`
		Services     []string `json:"services"`
		Privileges   []string `json:"privileges"`
	} `json:"users"`
	APIKeys []struct {
		Name   string `json:"name"`
		Key    string `json:"key"`
		KeyEnv string `json:"keyEnv"`
	} `json:"apiKeys"`
	SMSAccounts []struct {
		Username     string              `json:"username"`
		Password     string              `json:"password"`
		PasswordHash string              `json:"passwordHash"`
		PasswordEnv  string              `json:"passwordEnv"`
		Networks     []string            `json:"networks"`
		Balance      decimal.Decimal     `json:"balance"`
		Currency     string              `json:"currency"`
		Validity     string              `json:"validity"` // a Go duration, e.g. "24h"
		Throughput   int                 `json:"throughput"`
		MaxParts     int                 `json:"maxParts"`
		Blacklist    map[string][]string `json:"blacklistedSenderWords"`
		Prices       map[string]string   `json:"prices"` // prefix -> price of one part
	} `json:"smsAccounts"`
}

// bootstrap creates what the file names. Records that exist already (a
// restart against the same database) are left as they are.
func bootstrap(ctx context.Context, s platform, path string, getenv func(string) string) (created int, err error) {
	svc := s.auth
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f bootstrapFile
	if err := dec.Decode(&f); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	secret := func(clear, env, what string) (string, error) {
		if env == "" {
			return clear, nil
		}
		if clear != "" {
			return "", fmt.Errorf("%s: give a value or an environment variable, not both", what)
		}
		v := getenv(env)
		if v == "" {
			return "", fmt.Errorf("%s: environment variable %s is empty", what, env)
		}
		return v, nil
	}
	for i, c := range f.Clients {
		what := fmt.Sprintf("clients[%d]", i)
		s, err := secret(c.Secret, c.SecretEnv, what)
		if err != nil {
			return created, err
		}
		nets, err := prefixes(c.Networks)
		if err != nil {
			return created, fmt.Errorf("%s: %w", what, err)
		}
		_, _, err = svc.CreateClient(ctx, auth.ClientSpec{
			ID: c.ID, Name: c.Name, Secret: s, SecretHash: c.SecretHash, Networks: nets,
			Services: serviceUUIDs(c.Services), Privileges: privileges(c.Privileges),
		})
		if created, err = count(created, err, what); err != nil {
			return created, err
		}
	}
	for i, u := range f.Users {
		what := fmt.Sprintf("users[%d]", i)
		p, err := secret(u.Password, u.PasswordEnv, what)
		if err != nil {
			return created, err
		}
		_, err = svc.CreateUser(ctx, auth.UserSpec{
			Username: u.Username, Password: p, PasswordHash: u.PasswordHash,
			Services: serviceUUIDs(u.Services), Privileges: privileges(u.Privileges),
		})
		if created, err = count(created, err, what); err != nil {
			return created, err
		}
	}
	for i, k := range f.APIKeys {
		what := fmt.Sprintf("apiKeys[%d]", i)
		key, err := secret(k.Key, k.KeyEnv, what)
		if err != nil {
			return created, err
		}
		if key == "" {
			return created, fmt.Errorf("%s: a key or keyEnv is required", what)
		}
		_, _, err = svc.CreateAPIKey(ctx, k.Name, key)
		if created, err = count(created, err, what); err != nil {
			return created, err
		}
	}
	for i, a := range f.SMSAccounts {
		what := fmt.Sprintf("smsAccounts[%d]", i)
		p, err := secret(a.Password, a.PasswordEnv, what)
		if err != nil {
			return created, err
		}
		nets, err := prefixes(a.Networks)
		if err != nil {
			return created, fmt.Errorf("%s: %w", what, err)
		}
		var validity time.Duration
		if a.Validity != "" {
			if validity, err = time.ParseDuration(a.Validity); err != nil || validity <= 0 {
				return created, fmt.Errorf("%s: validity %q is not a positive duration", what, a.Validity)
			}
		}
		prices := make([]sms.Price, 0, len(a.Prices))
		for prefix, v := range a.Prices {
			d, err := decimal.NewFromString(v)
			if err != nil {
				return created, fmt.Errorf("%s: price of %s: %q is not a decimal", what, prefix, v)
			}
			prices = append(prices, sms.Price{Prefix: prefix, Price: d})
		}
		slices.SortFunc(prices, func(a, b sms.Price) int { return strings.Compare(a.Prefix, b.Prefix) })
		_, err = s.sms.CreateAccount(ctx, sms.AccountSpec{Password: p, Account: sms.Account{
			Username: a.Username, PasswordHash: a.PasswordHash, Networks: nets, Enabled: true,
			Balance: a.Balance, Currency: a.Currency, Validity: validity, Throughput: a.Throughput,
			MaxParts: a.MaxParts, BlacklistedSenderWords: a.Blacklist, Prices: prices,
		}})
		if created, err = count(created, err, what); err != nil {
			return created, err
		}
	}
	return created, nil
}

// count treats an existing record as done, so bootstrapping is repeatable.
func count(created int, err error, what string) (int, error) {
	switch {
	case err == nil:
		return created + 1, nil
	case msgkit.KindOf(err) == msgkit.Conflict:
		return created, nil
	}
	return created, fmt.Errorf("%s: %w", what, err)
}

// prefixes parses addresses ("192.0.2.10") and ranges ("192.0.2.0/24").
func prefixes(in []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(in))
	for _, s := range in {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("network %q is neither an address nor a range", s)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

func serviceUUIDs(in []string) []msgkit.ServiceUUID {
	out := make([]msgkit.ServiceUUID, len(in))
	for i, s := range in {
		out[i] = msgkit.ServiceUUID(s)
	}
	return out
}

func privileges(in []string) []auth.Privilege {
	out := make([]auth.Privilege, len(in))
	for i, s := range in {
		out[i] = auth.Privilege(s)
	}
	return out
}
