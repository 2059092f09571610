package pgstore

import (
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// groupColumn is the column that links a member to its group of kind g.
func groupColumn(g finance.Group) string {
	if g == finance.Netting {
		return "netting_invoice_id"
	}
	return "collection_lead_id"
}

// SetMembership moves an invoice between groups in one transaction. It
// reads which group the member is in, then locks the rows of the member,
// that group and group to in id order (SELECT … FOR UPDATE), so that
// moves and updates of the same invoices never deadlock one another; when
// the member moved in between, it reads and locks again. Every move locks
// the groups it changes, so the members it then reads of them stay as
// read until it commits. It writes the three rows as move leaves them,
// ids and UIDs unchanged. An unknown member is NotFound; a serialization
// failure or a deadlock runs the whole transaction again, as inTx does.
func (s *FinanceStore) SetMembership(ctx context.Context, g finance.Group, member, to finance.InvoiceID, move func(*finance.Move) error) (finance.Invoice, error) {
	var out finance.Invoice
	col := groupColumn(g)
	err := inTx(ctx, s.pool, s.log, "invoice membership", func(tx pgx.Tx) error {
		locked, err := lockMembers(ctx, tx, g, member, to)
		if err != nil {
			return err
		}
		mem := locked[member]
		m := finance.Move{Member: &mem}
		if old := g.Link(&mem); old != 0 && old != to {
			if m.Old, m.OldMembers, err = groupOf(ctx, tx, col, locked, old, member); err != nil {
				return finalIfMsgkit(err)
			}
		}
		if to != 0 {
			if m.New, m.NewMembers, err = groupOf(ctx, tx, col, locked, to, member); err != nil {
				return finalIfMsgkit(err)
			}
		}
		if err := move(&m); err != nil {
			return final{err}
		}
		for _, inv := range []*finance.Invoice{m.Member, m.Old, m.New} {
			if inv == nil {
				continue
			}
			inv.UID = locked[inv.ID].UID
			args, err := invoiceArgs(*inv)
			if err != nil {
				return final{err}
			}
			got, err := scanInvoice(tx.QueryRow(ctx, invoiceUpdateSQL, append(args, int64(inv.ID))...))
			if err != nil {
				return finalIfMsgkit(err)
			}
			if inv.ID == member {
				out = got
			}
		}
		return nil
	})
	if f, ok := errors.AsType[final](err); ok {
		return finance.Invoice{}, f.err
	}
	if err != nil {
		return finance.Invoice{}, classify(err, "invoice", invoiceWhat(member))
	}
	return out, nil
}

// lockMembers locks the member, the group of kind g it is in and
// group to, in id order, and returns those that exist by id: the member
// always (else NotFound), as it is once locked.
func lockMembers(ctx context.Context, tx pgx.Tx, g finance.Group, member, to finance.InvoiceID) (map[finance.InvoiceID]finance.Invoice, error) {
	col := groupColumn(g)
	for {
		var old int64
		if err := tx.QueryRow(ctx, "SELECT "+col+" FROM finance_invoices WHERE id = $1", int64(member)).Scan(&old); err != nil {
			return nil, final{classify(err, "invoice", invoiceWhat(member))}
		}
		ids := []int64{int64(member)}
		for _, id := range []int64{old, int64(to)} {
			if id != 0 && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		rows, err := tx.Query(ctx, invoiceSelectSQL+" WHERE i.id = ANY($1) ORDER BY i.id FOR UPDATE", ids)
		if err != nil {
			return nil, err
		}
		locked := map[finance.InvoiceID]finance.Invoice{}
		for rows.Next() {
			inv, err := scanInvoice(rows)
			if err != nil {
				rows.Close()
				return nil, finalIfMsgkit(err)
			}
			locked[inv.ID] = inv
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		mem, ok := locked[member]
		if !ok {
			return nil, final{msgkit.New(msgkit.NotFound, "invoice_not_found", invoiceWhat(member)+" not found")}
		}
		if g.Link(&mem) == finance.InvoiceID(old) {
			return locked, nil
		}
		// The member moved between the read and the lock: its group is
		// another. Locks taken stay until the end; read again.
	}
}

// groupOf returns group id as locked (nil when it does not exist) and its
// other members of column col than member, by id.
func groupOf(ctx context.Context, tx pgx.Tx, col string, locked map[finance.InvoiceID]finance.Invoice, id, member finance.InvoiceID) (*finance.Invoice, []finance.Invoice, error) {
	var grp *finance.Invoice
	if inv, ok := locked[id]; ok {
		grp = &inv
	}
	rows, err := tx.Query(ctx, invoiceSelectSQL+" WHERE i."+col+" = $1 AND i.id <> $2 ORDER BY i.id", int64(id), int64(member))
	if err != nil {
		return nil, nil, err
	}
	members, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (finance.Invoice, error) { return scanInvoice(r) })
	return grp, members, err
}
