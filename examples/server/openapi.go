package main

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/msgkit/msgkit/adapters/httpapi"
)

// apiDoc is a family's OpenAPI document and the listeners that serve the
// family, which become the document's servers.
type apiDoc struct {
	family  string
	doc     []byte
	servers func(listeners) []docServer
}

// docServer is one entry of a document's servers.
type docServer struct {
	scheme, addr, description string
}

// apiDocs serves the families' OpenAPI documents on the REST listener:
// GET /openapi/ lists them as [{"family","url"}], and GET
// /openapi/{family}.json returns one, its servers the addresses the
// platform bound for that family. Until the listeners are bound (setBound)
// the documents keep the servers they were written with.
type apiDocs struct {
	docs  []apiDoc
	bound atomic.Pointer[listeners]
}

// newAPIDocs lists the documents of families, then the platform's own
// health document (its probes answer on every listener).
func newAPIDocs(families []family) *apiDocs {
	var docs []apiDoc
	for _, f := range families {
		docs = append(docs, f.docs...)
	}
	docs = append(docs, apiDoc{"health", httpapi.HealthOpenAPI(), func(l listeners) []docServer {
		return append(restServers(l), bulkServers(l)...)
	}})
	return &apiDocs{docs: docs}
}

// restServers is the REST listener, where the REST families are served.
func restServers(l listeners) []docServer {
	return []docServer{{"http", l.API, "the REST listener"}}
}

// bulkServers are the bulk SMS listeners.
func bulkServers(l listeners) []docServer {
	s := []docServer{{"http", l.SMSHTTP, "bulk SMS over HTTP"}}
	if l.SMSHTTPS != "" {
		s = append(s, docServer{"https", l.SMSHTTPS, "bulk SMS over HTTPS"})
	}
	return s
}

// setBound tells the documents the addresses the listeners bound.
func (d *apiDocs) setBound(l listeners) { d.bound.Store(&l) }

// mount returns api with the documents served under /openapi/, with a
// request id and an access log line as the families have; other paths
// under /openapi/ answer as api's unknown paths do.
func (d *apiDocs) mount(api http.Handler, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	docs := http.NewServeMux()
	docs.HandleFunc("GET /openapi/{$}", d.list)
	docs.HandleFunc("GET /openapi/{file}", func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutSuffix(r.PathValue("file"), ".json")
		for _, doc := range d.docs {
			if ok && doc.family == name {
				d.serve(w, r, doc)
				return
			}
		}
		api.ServeHTTP(w, r)
	})
	docs.Handle("/", api)
	mux := http.NewServeMux()
	mux.Handle("/openapi/", httpapi.RequestID(nil)(httpapi.AccessLog(logger)(docs)))
	mux.Handle("/", api)
	return mux
}

type docLink struct {
	Family string `json:"family"`
	URL    string `json:"url"`
}

func (d *apiDocs) list(w http.ResponseWriter, r *http.Request) {
	links := make([]docLink, len(d.docs))
	for i, doc := range d.docs {
		links[i] = docLink{Family: doc.family, URL: "/openapi/" + doc.family + ".json"}
	}
	httpapi.WriteJSON(w, http.StatusOK, links)
}

// serve answers doc with its servers set to the bound listeners: an
// address bound to one host is given as it is, one bound to every
// interface with the host name the client used to reach the server.
func (d *apiDocs) serve(w http.ResponseWriter, r *http.Request, doc apiDoc) {
	l := d.bound.Load()
	if l == nil {
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc.doc)
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc.doc, &m); err != nil {
		panic("the embedded OpenAPI document of " + doc.family + " is not a JSON object: " + err.Error())
	}
	type server struct {
		URL         string `json:"url"`
		Description string `json:"description"`
	}
	var servers []server
	for _, s := range doc.servers(*l) {
		servers = append(servers, server{URL: s.scheme + "://" + publicAddr(s.addr, r.Host), Description: s.description})
	}
	m["servers"], _ = json.Marshal(servers)
	httpapi.WriteJSON(w, http.StatusOK, m)
}

// publicAddr is the host:port under which a client that reached the
// server as reqHost reaches the listener bound to addr.
func publicAddr(addr, reqHost string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = reqHost
		if h, _, err := net.SplitHostPort(reqHost); err == nil {
			host = h
		}
		if host == "" {
			host = "localhost"
		}
		host = strings.Trim(host, "[]")
	}
	return net.JoinHostPort(host, port)
}
