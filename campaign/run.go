package campaign

import (
	"context"
	"time"

	"github.com/msgkit/msgkit"
)

// TaskState is where one run of a campaign is.
type TaskState string

// The states of a task.
const (
	TaskPending TaskState = "pending" // created for its occurrence, not started
	TaskRunning TaskState = "running" // recipients being resolved and sent to
	TaskDone    TaskState = "done"    // every recipient's message handed over
	TaskStopped TaskState = "stopped" // the campaign was stopped or deleted during the run
)

// Task is one occurrence of a campaign and its run: one per (campaign,
// scheduled time).
type Task struct {
	ID          int64
	Tenant      msgkit.ServiceUUID
	Campaign    string
	ScheduledAt time.Time // the occurrence
	State       TaskState
	// Recipients counts the messages queued so far; Sent and Failed
	// those handed over and refused.
	Recipients, Sent, Failed int
	Created                  time.Time
	Finished                 time.Time // zero until done or stopped

	// The run's progress, for the runner and the store: Cursor is the
	// Audience cursor of the last page queued, Exhausted that no
	// recipient is left to queue, LeaseUntil the end of the lease of the
	// runner working the task (zero when none), Attempts the channel's
	// failures in a row.
	Cursor     string
	Exhausted  bool
	LeaseUntil time.Time
	Attempts   int
}

// MessageStatus is where one recipient's message of a task is.
type MessageStatus string

// The states of a message.
const (
	MessageQueued MessageStatus = "queued" // recorded, not yet handed over
	MessageSent   MessageStatus = "sent"   // the channel took it (for sms: the gateway accepted it, MsgID set)
	MessageFailed MessageStatus = "failed" // the channel refused it
)

// Message is one recipient's message of a task: one per (task, contact).
type Message struct {
	Task    int64
	Contact string // the contact's UUID
	Address string // where it goes: the mobile number, e-mail address or channel identifier
	Status  MessageStatus
	MsgID   string // the channel's id of the message (the bulk SMS msgId)
	Error   string // why it failed
	Updated time.Time
}

// Runs reads a campaign's tasks and messages, for the fields tasks and
// messages of a campaign's answer.
type Runs interface {
	// Tasks lists the campaign's tasks by scheduled time.
	Tasks(ctx context.Context, tenant msgkit.ServiceUUID, campaign string) ([]Task, error)
	// Messages lists up to limit of the campaign's messages, by task,
	// then contact UUID.
	Messages(ctx context.Context, tenant msgkit.ServiceUUID, campaign string, limit int) ([]Message, error)
}
