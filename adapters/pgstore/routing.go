package pgstore

import (
	"context"
	"errors"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/routing"
)

var _ routing.Store = (*RoutingStore)(nil)

// RoutingStore keeps the inbound MT routes (0017_routing.sql). A create
// without an id locks the table against other writers (SHARE ROW
// EXCLUSIVE: reads go on) while it takes the smallest id above the
// largest, so concurrent creates never take one id twice.
type RoutingStore struct {
	pool *pgxpool.Pool
	log  *storeLog
}

// Routing is the store of inbound MT routes.
func (db *DB) Routing() *RoutingStore { return &RoutingStore{pool: db.pool, log: db.log} }

func routeArgs(r routing.Route) ([]any, error) {
	for _, f := range []struct{ name, v string }{{"sigtran_connect_id", r.Sigtran}, {"smpp_connect_id", r.SMPP}, {"esme_connect_id", r.ESME}} {
		if err := invalidText("route", f.name, f.v); err != nil {
			return nil, err
		}
	}
	return []any{r.ID, r.Sigtran, r.SMPP, r.ESME}, nil
}

// Create stores r, giving it the smallest id above every stored one when
// it has none.
func (s *RoutingStore) Create(ctx context.Context, r routing.Route) (routing.Route, error) {
	err := inTx(ctx, s.pool, s.log, "creating a route", func(tx pgx.Tx) error {
		if r.ID == 0 {
			if _, err := tx.Exec(ctx, `LOCK TABLE smsmtin_routes IN SHARE ROW EXCLUSIVE MODE`); err != nil {
				return err
			}
			var top int64
			if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM smsmtin_routes`).Scan(&top); err != nil {
				return err
			}
			if top == math.MaxInt64 {
				return final{routing.IDsExhausted(top)}
			}
			r.ID = top + 1
		}
		args, err := routeArgs(r)
		if err != nil {
			return final{err}
		}
		tag, err := tx.Exec(ctx, `INSERT INTO smsmtin_routes (id, sigtran, smpp, esme) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return final{routing.Exists(r.ID)}
		}
		return nil
	})
	if err != nil {
		return routing.Route{}, routeError(err, "creating a route")
	}
	return r, nil
}

// routeError passes a msgkit error on and classifies the others.
func routeError(err error, what string) error {
	if e, ok := errors.AsType[*msgkit.Error](err); ok {
		return e
	}
	return classify(err, "route", what)
}

// Route returns a route.
func (s *RoutingStore) Route(ctx context.Context, id int64) (routing.Route, error) {
	r := routing.Route{ID: id}
	err := s.pool.QueryRow(ctx, `SELECT sigtran, smpp, esme FROM smsmtin_routes WHERE id = $1`, id).Scan(&r.Sigtran, &r.SMPP, &r.ESME)
	if errors.Is(err, pgx.ErrNoRows) {
		return routing.Route{}, routing.NotFound(id)
	}
	if err != nil {
		return routing.Route{}, classify(err, "route", "route")
	}
	return r, nil
}

// Routes lists the routes by id.
func (s *RoutingStore) Routes(ctx context.Context) ([]routing.Route, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, sigtran, smpp, esme FROM smsmtin_routes ORDER BY id`)
	if err != nil {
		return nil, classify(err, "route", "routes")
	}
	rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (routing.Route, error) {
		var r routing.Route
		err := row.Scan(&r.ID, &r.Sigtran, &r.SMPP, &r.ESME)
		return r, err
	})
	if err != nil {
		return nil, classify(err, "route", "routes")
	}
	return rs, nil
}

// Update replaces a route's connection ids.
func (s *RoutingStore) Update(ctx context.Context, r routing.Route) error {
	args, err := routeArgs(r)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE smsmtin_routes SET sigtran = $2, smpp = $3, esme = $4 WHERE id = $1`, args...)
	if err != nil {
		return classify(err, "route", "route")
	}
	if tag.RowsAffected() == 0 {
		return routing.NotFound(r.ID)
	}
	return nil
}

// Delete removes a route.
func (s *RoutingStore) Delete(ctx context.Context, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM smsmtin_routes WHERE id = $1`, id)
	if err != nil {
		return classify(err, "route", "route")
	}
	if tag.RowsAffected() == 0 {
		return routing.NotFound(id)
	}
	return nil
}
