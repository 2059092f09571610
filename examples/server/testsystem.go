package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/msgkit/msgkit/audit"
	"log/slog"
	"net/http"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/testsystemapi"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/prometheus/client_golang/prometheus"
)

// demoForeignSMSC is the service centre of the demo's offshore route: a
// transit operator's, in another country than any tested operator.
const demoForeignSMSC = "+3706980001"

// demoHandsets are the simulated test handsets: one on every network of
// the fixture, with the network's own SMSC from the fixture's table.
var demoHandsets = map[string]sms.MSISDN{
	"26201": "+491510000001", "26202": "+491520000002", "26203": "+491590000003",
	"23410": "+447700900010", "23415": "+447700900015", "23430": "+447700900030",
	"23201": "+436640000001", "23203": "+436760000003",
	"20801": "+33612000001", "20810": "+33612000010",
	"310260": "+12025550126", "310410": "+12025550141",
}

// testSystemFamily is the SMS route test system under /gate/testsystem/v1/
// over st: the fixture's reference data (loaded into a new store),
// simulated handsets on every fixture network, and the fixture's five
// gates as simulated routes that behave as their names say: alpha-direct
// honest, beta-wholesale faking delivery reports, gamma-grey replacing
// the sender, beta-latin transcoding to GSM, gamma-offshore delivering
// through a foreign SMSC. Completed sessions' callbacks go out with the
// delivery reports. The bootstrap section testSystem is a dataset in the
// format of testsystem.LoadDataset, stored over what is there (records
// with the same ids replaced). Its demo gives the demo user an operator
// of its own. Users' own daily limits are kept in st and set through the
// administration, which gets the System.
func testSystemFamily(opts httpapi.Options, st testsystem.Store, fresh bool, timeLimit time.Duration, trail *audit.Log, reg prometheus.Registerer, logger *slog.Logger) (family, *testsystem.System) {
	if st == nil {
		return family{name: "test system", api: map[string]http.Handler{testsystemapi.BasePath: testsystemapi.Handler(opts, testsystemapi.Backend{})}}, nil
	}
	fixture := testsystem.Fixture()
	hs := simnet.NewHandsets(nil)
	for _, c := range fixture.SMSCs {
		if number, ok := demoHandsets[c.MCC+c.MNC]; ok {
			if err := hs.Add(number, c.MCC+c.MNC, c.Address); err != nil {
				panic("examples/server: the demo handsets: " + err.Error())
			}
		}
	}
	outcome := simnet.Outcome{Kind: simnet.Deliver, AcceptDelay: 200 * time.Millisecond, Delay: time.Second, Jitter: 2 * time.Second}
	routes := map[int64]simnet.Route{1: {}, 2: {FakeDLR: true}, 3: {Sender: "4915550000"}, 4: {Transcode: true}, 5: {SMSC: demoForeignSMSC}}
	nets := map[int64]*simnet.Network{}
	for gate, rt := range routes {
		nets[gate] = simnet.New(simnet.Options{Handsets: hs, Route: rt, Default: outcome, Seed: uint64(gate), Logger: logger})
	}
	tsOpts := testsystem.Options{Logger: logger, TimeLimit: timeLimit, Limits: st, Metrics: reg}
	if trail != nil {
		tsOpts.Audit = trail
	}
	sys := testsystem.New(st, st, hs, func(id int64) (sms.Upstream, bool) {
		n, ok := nets[id]
		return n, ok
	}, tsOpts)
	f := family{
		name: "test system",
		api: map[string]http.Handler{testsystemapi.BasePath: testsystemapi.Handler(opts, testsystemapi.Backend{
			System: sys,
		})},
		docs: []apiDoc{{"testsystem", testsystemapi.OpenAPI(), restServers}},
		jobs: []func(context.Context){func(ctx context.Context) { sys.Run(ctx, time.Second) }},
		sections: []section{{"testSystem", func(ctx context.Context, raw json.RawMessage, _ secretSource) (int, error) {
			d, err := testsystem.LoadDataset(bytes.NewReader(raw))
			if err != nil {
				return 0, err
			}
			return len(d.Operators) + len(d.Categories) + len(d.Suppliers) + len(d.Gates) + len(d.Routes) + len(d.SMSCs), st.Load(ctx, d)
		}}},
		demo: func(ctx context.Context, d *demoCredentials) error {
			own := testsystem.Dataset{Operators: []testsystem.Operator{{ID: 1000, Owner: d.Username, Name: "Demo Lab Network", Country: "United Kingdom", MCC: "234", MNC: "10"}}}
			if err := st.Load(ctx, own); err != nil {
				return fmt.Errorf("the demo user's operator: %w", err)
			}
			return nil
		},
	}
	for _, n := range nets {
		f.jobs = append(f.jobs, func(ctx context.Context) { n.Run(ctx, sys, 100*time.Millisecond) })
	}
	if fresh {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := st.Load(ctx, fixture); err != nil {
			logger.Error("loading the test system's reference data", "err", err)
		}
	}
	return f, sys
}
