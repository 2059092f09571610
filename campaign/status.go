package campaign

import (
	"time"

	"github.com/msgkit/msgkit"
)

// The status machine. The interface gives: a new campaign is active or
// draft; PATCH moves active and stopped campaigns between active and
// stopped. The rest is decided here:
//
//   - PATCH takes active or stopped only. A draft may be made active
//     (published) but not stopped; a finished campaign changes no more;
//     asking for the status a campaign has already changes nothing.
//   - PUT replaces a draft, active or stopped campaign; its status may
//     stay, or move as PATCH would move it; draft is kept only by a draft.
//     A finished campaign is not replaced: clone it.
//   - finished is set by the runner alone: after the run of a now or
//     once campaign, and when a scheduled campaign's rule has no further
//     occurrence. Nothing leaves finished.
//
// Next (next_dt) is set while the campaign is active and only then: the
// time of the now campaign's save, the once time, or the next occurrence
// of the rule from the request's time on; occurrences missed while the
// campaign was stopped are skipped. Last (last_dt) is the time of the
// last occurrence run.

func statusError(msg string) error {
	return msgkit.Invalidf(CodeInvalidStatus, "status", "%s", msg)
}

// ChangeStatus applies a PATCH of the status to c at now.
func ChangeStatus(c *Campaign, to Status, now time.Time) error {
	if to != Active && to != Stopped {
		return statusError("status must be active or stopped")
	}
	if err := checkMove(c.Status, to); err != nil {
		return err
	}
	if c.Status == to {
		return nil
	}
	c.Status = to
	return c.Plan(now)
}

// CheckReplace checks that a PUT may move a campaign from from to to.
func CheckReplace(from, to Status) error {
	if from == Finished {
		return checkMove(from, to)
	}
	if to == Draft {
		if from != Draft {
			return statusError("only a draft stays a draft; stop the campaign instead")
		}
		return nil
	}
	if to == Finished {
		return statusError("finished is the runner's to set: a campaign finishes after its last run")
	}
	return checkMove(from, to)
}

func checkMove(from, to Status) error {
	switch {
	case from == Finished:
		return statusError("a finished campaign does not change; clone it for a new run")
	case from == Draft && to == Stopped:
		return statusError("a draft is not stopped: make it active, or leave it a draft")
	}
	return nil
}

// Plan sets Next from the status and the schedule at now: an active
// campaign's next run, zero otherwise. An active scheduled campaign whose
// rule has no occurrence from now on is finished. An active once
// campaign whose time has passed without a run is refused (a resumed
// campaign does not send late; give it a new time).
func (c *Campaign) Plan(now time.Time) error {
	c.Next, c.NextSeq = time.Time{}, 0
	if c.Status != Active {
		return nil
	}
	switch c.Schedule.Type {
	case Now:
		c.Next = now.UTC()
	case Once:
		if c.Schedule.At.Before(now) {
			return msgkit.Invalidf(CodeInvalidStatus, "schedule_rrule",
				"the once time %s has passed; give the campaign a new schedule_rrule", c.Schedule.At.Format(OnceLayout))
		}
		c.Next = c.Schedule.At
	case Scheduled:
		t, seq, ok := c.Schedule.Next(c.cursor(), c.LastSeq, now, true)
		if !ok {
			c.Status = Finished
			return nil
		}
		c.Next, c.NextSeq = t, seq
	}
	return nil
}

// Ran records that the occurrence at c.Next ran, at now: it becomes
// Last, and the campaign plans its next occurrence after now (a long run
// skips the occurrences it overlapped), or finishes.
func (c *Campaign) Ran(now time.Time) {
	c.Last, c.LastSeq = c.Next, c.NextSeq
	c.Next, c.NextSeq = time.Time{}, 0
	if c.Schedule.Type != Scheduled {
		c.Status = Finished
		return
	}
	t, seq, ok := c.Schedule.Next(c.Last, c.LastSeq, maxTime(now, c.Last), false)
	if !ok {
		c.Status = Finished
		return
	}
	c.Next, c.NextSeq = t, seq
}

// cursor is the last occurrence run, from where the rule is scanned;
// zero when none is known (LastSeq 0), and then the rule is scanned from
// its DTSTART.
func (c *Campaign) cursor() time.Time {
	if c.LastSeq == 0 {
		return time.Time{}
	}
	return c.Last
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
