package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// A request in flight when the stop signal comes is answered before the
// process ends, and new connections are refused. In flight means inside a
// handler: net/http drops a request whose headers it read just before
// Shutdown began but that had not reached its handler yet.
func TestGracefulShutdown(t *testing.T) {
	entered := make(chan struct{}, 16)
	cfg := config{
		store: "memory", addr: "127.0.0.1:0", smsHTTP: "127.0.0.1:0", getenv: func(string) string { return "" }, bcryptCost: bcrypt.MinCost,
		wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				entered <- struct{}{}
				next.ServeHTTP(w, r)
			})
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	readyc := make(chan listeners, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, slog.New(slog.DiscardHandler), &strings.Builder{}, func(l listeners) { readyc <- l })
	}()
	l := <-readyc

	conn, err := net.Dial("tcp", l.API)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := "grant_type=client_credentials&client_id=nobody&client_secret=x"
	fmt.Fprintf(conn, "POST /oauth2/access-token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:10])
	<-entered // a handler is reading this request's body
	cancel()
	refused := false
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", l.API, time.Second)
		if err != nil {
			refused = true
			break
		}
		c.Close()
	}
	if !refused {
		t.Error("new connections are still accepted after the stop signal")
	}
	fmt.Fprint(conn, body[10:])
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the request in flight was not answered: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("in-flight request answered %d, want 401 (unknown client)", resp.StatusCode)
	}
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
}

// With -tls-cert and -tls-key, bulk SMS is served over HTTPS too.
func TestHTTPSListener(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := selfSigned(t, dir)
	l, _ := startPlatform(t, config{store: "memory", tlsCert: certFile, tlsKey: keyFile})
	if l.SMSHTTPS == "" {
		t.Fatal("no HTTPS listener")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // the test's own self-signed certificate
	resp, err := client.Get("https://" + l.SMSHTTPS + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS == nil {
		t.Errorf("HTTPS /healthz: %d, TLS %v", resp.StatusCode, resp.TLS != nil)
	}
}

func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
