package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// smppServerTLS reads -smpp-server-tls: TLS needs the listener and the
// certificate of -tls-cert.
func smppServerTLS(v, addr, cert string) (bool, error) {
	switch v {
	case "false":
		return false, nil
	case "true":
		if addr == "" || cert == "" {
			return false, errors.New("-smpp-server-tls true needs -smpp-server and -tls-cert with -tls-key")
		}
		return true, nil
	}
	return false, fmt.Errorf("-smpp-server-tls must be true or false, not %q", v)
}

// newESMEServer is the SMPP server for customers' ESMEs over the bulk SMS
// family's gateway, when -smpp-server asks for one; its metrics go on reg.
func newESMEServer(cfg config, gw *sms.Gateway, reg prometheus.Registerer, logger *slog.Logger) *smppserver.Server {
	if cfg.smppServer == "" {
		return nil
	}
	return smppserver.New(gw, smppserver.Options{Logger: logger, Metrics: reg})
}

// listenESMEs opens -smpp-server's listener, in TLS with -smpp-server-tls;
// nil without a server.
func listenESMEs(cfg config, srv *smppserver.Server) (net.Listener, error) {
	if srv == nil {
		return nil, nil
	}
	ln, err := net.Listen("tcp", cfg.smppServer)
	if err != nil {
		return nil, fmt.Errorf("smpp-server: %w", err)
	}
	if cfg.smppServerTLS {
		cert, err := tls.LoadX509KeyPair(cfg.tlsCert, cfg.tlsKey)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("smpp-server: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	return ln, nil
}

// serveESMEs serves ESMEs on ln until Shutdown.
func serveESMEs(srv *smppserver.Server, ln net.Listener, logger *slog.Logger) error {
	err := srv.Serve(ln)
	if errors.Is(err, smppserver.ErrServerClosed) {
		return nil
	}
	logger.Error("listener failed", "listener", "smpp-server", "err", err)
	return fmt.Errorf("smpp-server: %w", err)
}
