// Package campaign keeps campaigns: one channel's message sent to the
// contacts of one or more lists, optionally narrowed by a segmentation
// query, now, once at a set time, or on every occurrence of an iCalendar
// recurrence rule. The CDS HTTP family serves it under
// /news/v1/services/{serviceUuid}/campaigns. Its listing (ListSpec)
// filters created_dt, updated_dt, next_dt and last_dt as the family shows
// them, in whole seconds: gt(next_dt)=T leaves out a campaign shown with
// next_dt T.
//
// # Fields and rules
//
// Fill checks a body and names every problem at once (code
// invalid_campaign, each field by its wire name):
//
//   - name, status, sending_type, schedule_type, template, sender and
//     recipient_lists are required; name is up to 255 characters.
//   - status is active, stopped, finished or draft; a new campaign is
//     active or draft.
//   - sending_type is sms, webpush, email, telegram, rbm, viber or
//     whatsapp.
//   - schedule_type now runs as soon as the campaign is saved active (no
//     schedule_rrule); once runs at schedule_rrule, a UTC time
//     "Y-m-d H:i:s" after the request; scheduled runs on every occurrence
//     of schedule_rrule, an iCalendar RRULE (see Schedules).
//   - template: plain text for sms, checked by the SMS encoder, which
//     counts the parts of one message (Campaign.Parts); UTF-8 text for
//     webpush (its content is in the webpush fields); for the other
//     channels a JSON document {"messages":[{"body":{"textMessage":
//     {"content"}}|{"cardMessage":{"content":{"description","media":
//     {"url"},"suggestions":[{"text","openUrl":{"url"}}]}}},
//     "allowedChannels":[...]}]}, checked member by member, an unknown
//     member refused, problems named by path
//     ("template.messages[0].body.textMessage.content").
//   - webpush_title and webpush_body are required for webpush;
//     webpush_target_url, webpush_icon and webpush_image are absolute
//     http or https URLs; all five belong to webpush campaigns only.
//   - sender: an SMS sender ID (the bulk SMS rules), an e-mail address,
//     a WhatsApp business phone number ID (digits); other channels' ids
//     are up to 100 printable characters.
//   - recipient_lists: list UUIDs separated by commas, repeats dropped,
//     at most 50, each a list of the tenant (Service checks).
//   - query_type all (the default) or segmentation; query is the JSON of
//     a segmentation query (segmentation.Parse, its problems named under
//     query) and is only for segmentation.
//
// # Clones
//
// A create with clone_uuid copies that campaign of the tenant; the
// members sent override the copy's. template_vars replaces each {name}
// placeholder (a letter or '_', then letters, digits, '_') of the
// template, the copy's or the one sent, that it has a value for. A
// placeholder left without a value stays as written, as it does in a
// clone sent without template_vars (the interface accepts that clone, so
// it accepts one that fills some placeholders); a variable without a
// placeholder is refused, naming template_vars, as its name is likely
// misspelt. In a JSON template the values are inserted escaped as JSON
// string content. name, when not sent, is the source's; status, when not
// sent, is the source's if active or draft, else draft. The clone has its
// own UUID, times and runs.
//
// # Status
//
// The interface fixes creation (active or draft) and PATCH between
// active and stopped; the rest is decided in status.go: a draft may be
// made active by PATCH, not stopped; PUT replaces a draft, active or
// stopped campaign and may move its status as PATCH would (draft stays
// only a draft); a finished campaign changes no more (clone it); finished
// is set after the run of a now or once campaign, and when a scheduled
// campaign's rule has no further occurrence. A refused move is Invalid
// (400) with code invalid_status_change naming status.
//
// next_dt is set while a campaign is active and only then: the time of
// the save for now, the once time, or the rule's next occurrence from the
// request on (occurrences missed while stopped are skipped; resuming a
// once campaign whose time has passed is refused: give it a new time).
// last_dt is the last occurrence run. Both are RFC 3339 in UTC.
//
// # Schedules
//
// A rule may start with a DTSTART line ("DTSTART:20261201T090000Z", or
// "DTSTART;TZID=Europe/Berlin:20261201T090000" for wall-clock times in a
// zone); without one it starts at the request (whole seconds, UTC). It is
// kept and answered in a normal form: the DTSTART line, then "RRULE:" with
// UNTIL in UTC (an UNTIL given in local time is read in the DTSTART's
// zone). Occurrences are computed with teambition/rrule-go in the
// DTSTART's zone, so they keep their wall-clock time across daylight
// saving changes: a time that does not exist (the clock set forward) is
// taken with the offset before the change, a time that occurs twice (the
// clock set back) is its first occurrence (RFC 5545 3.3.5).
//
// The series is never expanded whole. The next occurrence is searched
// from the last one run (Campaign.Last and its ordinal, so COUNT keeps
// counting), within a horizon (31 days for MINUTELY, 2 years for HOURLY,
// 10 for DAILY and WEEKLY, 30 for MONTHLY, 200 for YEARLY, each times
// INTERVAL): a rule with no occurrence within it has ended. At most
// MaxScan occurrences are walked, so a rule whose DTSTART lies more
// occurrences back than that is refused, as is a rule with no occurrence
// from now on (an UNTIL past, or BYxxx parts that never match, such as
// February 30th), FREQ=SECONDLY, more than one BYSECOND, COUNT above
// MaxCount and INTERVAL above 1000.
//
// # Runs
//
// A Runner sends campaigns; several may share one store (RunStore):
//
//   - Each due occurrence (an active campaign whose next_dt has come)
//     becomes one task, made with the campaign's advance to its next
//     occurrence in one store step; a task of a campaign and time that
//     exists is never made again, so replicas claim each occurrence once.
//   - A task is worked under a lease (RunnerOptions.Lease): the runner
//     resolves its recipients a page at a time (Audience: the contacts of
//     the lists, in use, subscribed to their list, matching the query,
//     opted in to the channel, with its address; see Address; the query
//     is parsed once a task, and again only after a PUT changed it),
//     stores one queued message per recipient (one per contact and one
//     per address: a number in two lists gets one message) with the
//     page's cursor,
//     then hands the queued messages to the channel's Sender at the
//     tenant's pace (see Pace below) and records each outcome. Every
//     store step renews the lease, and a paced run records what it handed
//     over at least every half lease; a runner whose lease ended finds the
//     task taken over and lets go.
//   - A message's key is MessageKey(task, contact), the same on every
//     try. SMSSender submits it as the bulk SMS msgId through the
//     gateway (sms.Gateway.SubmitFor: splitting, charging, the outbound
//     queue and delivery reports apply, charged to the tenant's payer),
//     and a key already accepted counts as sent: a run interrupted after
//     the gateway took messages and before they were recorded resumes,
//     when its lease ends, without sending or charging anyone twice.
//     WebhookSender posts channels without a transport here as
//     WebhookMessage to a URL, at least once, the key as its id.
//   - A channel failing for the moment (throttled, out of credit) gives
//     the task back with backoff; a refusal for good (no route, a bad
//     number) fails that message only.
//   - A stopped or deleted campaign (or one made a draft) stops its task
//     within RunnerOptions.CheckEvery (50) messages: the messages not
//     handed over stay queued, not sent. Up to RunnerOptions.InFlight
//     (32) messages are on their way at once, as a channel answers one
//     message at a time.
//
// # Payer
//
// A tenant's payer is the bulk SMS account (its username) its sms
// campaigns are charged to: a setting of the tenant that the Store keeps
// (Service.SetPayer, RemovePayer, Payer), not part of a campaign, so it
// outlives campaigns and restarts. CheckPayer holds it to a bulk SMS
// username (1 to 200 bytes, no spaces or control characters, code
// invalid_payer naming account); whether the gateway knows the account
// is not checked here: the gateway's answer fails the messages. The
// Runner reads the payer from its RunStore as it begins handing each
// page over (Outgoing.Payer), so a payer set or changed during a run
// charges the next page; a tenant without one has each of its sms
// messages fail with code no_sms_account ("the tenant has no bulk SMS
// account for campaigns"), and the run goes on to its end.
//
// # Pace
//
// A tenant's campaigns (all their channels, on one Runner) send together
// at most at one pace, chosen for each page by precedence (Pace):
//
//  1. the rate set for the tenant (RunnerOptions.Rate: the operator's
//     override; 0 or rate.Inf sends unpaced);
//  2. else its payer's throughput, the bulk SMS account's submissions a
//     second (RunnerOptions.Throughputs, read as the payer is, for each
//     page), since the gateway throttles what goes faster: a tenant is
//     paced by what it pays for by default;
//  3. else RunnerOptions.DefaultRate;
//  4. else none: unpaced, as fast as the channel takes the messages
//     (InFlight at a time).
//
// A rate set above the payer's throughput meets the gateway's throttling,
// which gives the task back with backoff. A paced tenant sends in bursts
// of a tenth of a second's worth unless RunnerOptions.Burst says.
//
// The task's state is pending, running, done or stopped; a message's
// queued, sent (with the channel's msgId) or failed (with why). GET of a
// campaign with fields=tasks,messages shows them.
//
// # Metrics
//
// A Runner given RunnerOptions.Metrics counts the messages it hands
// over by outcome (msgkit_campaign_messages_total, sent or failed) once
// the store has recorded them, and reads its RunStore's Backlog at each
// scrape, within 5 seconds (a failed read fails those gauges, not the
// scrape): the tasks not finished by state (msgkit_campaign_tasks,
// pending or running) and the messages they have queued, not yet handed
// over (msgkit_campaign_messages_pending). Done and stopped tasks are
// left out: they only grow, and counting them would read every task
// ever run; the messages counter tells what was sent.
package campaign
