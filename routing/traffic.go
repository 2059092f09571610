package routing

// For is the record that routes a message arriving on connection conn
// (see the package doc's record-to-traffic rule): of the records whose
// sigtran_connect_id is conn, the one with the lowest id; false when none
// is. routes may come in any order.
func For(routes []Route, conn string) (Route, bool) {
	var best Route
	found := false
	for _, r := range routes {
		if r.Sigtran == conn && (!found || r.ID < best.ID) {
			best, found = r, true
		}
	}
	return best, found
}

// ToESME reports whether r hands its messages to an ESME
// (esme_connect_id); otherwise to the account smpp_connect_id names.
func (r Route) ToESME() bool { return r.ESME != Unused }

// Target is the connection id r hands its messages to: esme_connect_id
// or smpp_connect_id, whichever is set.
func (r Route) Target() string {
	if r.ToESME() {
		return r.ESME
	}
	return r.SMPP
}
